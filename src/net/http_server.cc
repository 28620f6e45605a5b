#include "net/http_server.h"

#include <httplib.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>

#include "core/file_util.h"

namespace gpufleet {
namespace {

// The first queued OpenSSL error as text ("" when none); clears the queue.
std::string TakeOpensslError() {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "";
  char buf[256];
  ERR_error_string_n(code, buf, sizeof buf);
  return buf;
}

// An encrypted key would make OpenSSL prompt on the terminal; refuse instead.
int RefusePassphrase(char*, int, int, void*) { return -1; }

// Loads what SSLServer will load, so that a bad file is reported by name and
// cause rather than as a server that "is not valid".
Status CheckTlsFiles(const HttpServerTls& tls) {
  if (tls.cert_file.empty()) return InvalidArgumentError("TLS: no cert_file given");
  if (tls.key_file.empty()) return InvalidArgumentError("TLS: no key_file given");
  StatusOr<std::string> cert_pem = ReadFileToString(tls.cert_file);
  if (!cert_pem.ok()) {
    return InvalidArgumentError("TLS cert_file " + std::string(cert_pem.status().message()));
  }
  StatusOr<std::string> key_pem = ReadFileToString(tls.key_file);
  if (!key_pem.ok()) {
    return InvalidArgumentError("TLS key_file " + std::string(key_pem.status().message()));
  }

  ERR_clear_error();
  std::unique_ptr<BIO, decltype(&BIO_free)> cert_bio(
      BIO_new_mem_buf(cert_pem->data(), static_cast<int>(cert_pem->size())), &BIO_free);
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      PEM_read_bio_X509(cert_bio.get(), nullptr, RefusePassphrase, nullptr), &X509_free);
  if (cert == nullptr) {
    return InvalidArgumentError(
        "TLS cert_file " + tls.cert_file +
        ": no PEM certificate (-----BEGIN CERTIFICATE-----) in it: " + TakeOpensslError());
  }
  std::unique_ptr<BIO, decltype(&BIO_free)> key_bio(
      BIO_new_mem_buf(key_pem->data(), static_cast<int>(key_pem->size())), &BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      PEM_read_bio_PrivateKey(key_bio.get(), nullptr, RefusePassphrase, nullptr), &EVP_PKEY_free);
  if (key == nullptr) {
    return InvalidArgumentError("TLS key_file " + tls.key_file +
                                ": no unencrypted PEM private key in it: " + TakeOpensslError());
  }
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    ERR_clear_error();
    return InvalidArgumentError("TLS key_file " + tls.key_file +
                                " does not match the certificate in cert_file " + tls.cert_file);
  }
  if (X509_cmp_current_time(X509_get0_notAfter(cert.get())) <= 0) {
    return InvalidArgumentError("TLS cert_file " + tls.cert_file + ": the certificate has expired");
  }
  return OkStatus();
}

}  // namespace

const std::string& HttpServerRequest::body() const { return impl_.body; }
const std::string& HttpServerRequest::remote_addr() const { return impl_.remote_addr; }
const std::string& HttpServerRequest::method() const { return impl_.method; }
const std::string& HttpServerRequest::path() const { return impl_.path; }
std::string HttpServerRequest::header(std::string_view name) const {
  return impl_.get_header_value(std::string(name));
}
bool HttpServerRequest::has_param(std::string_view name) const {
  return impl_.has_param(std::string(name));
}
std::string HttpServerRequest::param(std::string_view name) const {
  return impl_.get_param_value(std::string(name));
}
std::string HttpServerRequest::match(size_t i) const {
  return i < impl_.matches.size() ? std::string(impl_.matches[i]) : std::string();
}

void HttpServerResponse::set_status(int status) { impl_.status = status; }
void HttpServerResponse::set_content(const std::string& body, const std::string& content_type) {
  impl_.set_content(body, content_type);
}
void HttpServerResponse::set_header(const std::string& name, const std::string& value) {
  impl_.set_header(name, value);
}
void HttpServerResponse::set_file(const std::string& path, uint64_t bytes,
                                  const std::string& content_type) {
  auto in = std::make_shared<std::ifstream>(path, std::ios::binary);
  impl_.set_content_provider(
      static_cast<size_t>(bytes), content_type,
      [in](size_t offset, size_t length, httplib::DataSink& sink) {
        constexpr size_t kChunk = 64 * 1024;
        char buf[kChunk];
        in->seekg(static_cast<std::streamoff>(offset));
        in->read(buf, static_cast<std::streamsize>(std::min(length, kChunk)));
        const std::streamsize n = in->gcount();
        if (n <= 0) return false;
        return sink.write(buf, static_cast<size_t>(n));
      });
}

namespace {

// cpp-httplib (0.11) compresses a response with brotli at quality 11 when
// the client accepts "br", as every browser does: about 13 s for a 2.8 MB
// JSON answer (the inventory of 10,000 GPUs) against 0.5 s with gzip. Offer
// it gzip only. The request object is httplib's own non-const one, handed
// to handlers as const; the encoding is chosen from it after the handler.
void OfferGzipOnly(const httplib::Request& req) {
  auto& headers = const_cast<httplib::Request&>(req).headers;
  auto it = headers.find("Accept-Encoding");
  if (it == headers.end() || it->second.find("br") == std::string::npos) return;
  it->second = it->second.find("gzip") != std::string::npos ? "gzip" : "identity";
}

}  // namespace

HttpServer::HttpServer() : HttpServer(std::make_unique<httplib::Server>(), false) {}

HttpServer::HttpServer(std::unique_ptr<httplib::Server> impl, bool tls)
    : impl_(std::move(impl)), tls_(tls) {
  // httplib writes a response's headers and body apart; with Nagle's
  // algorithm on, the second write waits for the ACK of the first, which
  // the peer delays (40 ms on Linux): every request of a kept-alive
  // connection took 40 ms whatever its size.
  impl_->set_tcp_nodelay(true);
}

StatusOr<std::unique_ptr<HttpServer>> HttpServer::NewTls(const HttpServerTls& tls) {
  RETURN_IF_ERROR(CheckTlsFiles(tls));
  auto ssl = std::make_unique<httplib::SSLServer>(tls.cert_file.c_str(), tls.key_file.c_str());
  if (!ssl->is_valid()) {
    return InvalidArgumentError("TLS: cannot serve cert_file " + tls.cert_file + " with key_file " +
                                tls.key_file + ": " + TakeOpensslError());
  }
  // Nothing older than TLS 1.2 (RFC 8996 deprecates 1.0 and 1.1).
  if (SSL_CTX_set_min_proto_version(ssl->ssl_context(), TLS1_2_VERSION) != 1) {
    return InternalError("TLS: cannot set the minimum protocol version: " + TakeOpensslError());
  }
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(ssl), true));
}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Get(const std::string& pattern, Handler handler) {
  impl_->Get(pattern, [handler = std::move(handler)](const httplib::Request& req,
                                                     httplib::Response& res) {
    OfferGzipOnly(req);
    HttpServerResponse response(res);
    handler(HttpServerRequest(req), response);
  });
}

void HttpServer::Post(const std::string& pattern, Handler handler) {
  impl_->Post(pattern, [handler = std::move(handler)](const httplib::Request& req,
                                                      httplib::Response& res) {
    OfferGzipOnly(req);
    HttpServerResponse response(res);
    handler(HttpServerRequest(req), response);
  });
}

void HttpServer::SetFilter(Filter filter) {
  impl_->set_pre_routing_handler([filter = std::move(filter)](const httplib::Request& req,
                                                              httplib::Response& res) {
    HttpServerResponse response(res);
    return filter(HttpServerRequest(req), response)
               ? httplib::Server::HandlerResponse::Handled
               : httplib::Server::HandlerResponse::Unhandled;
  });
}

void HttpServer::SetMaxBodyBytes(size_t bytes) { impl_->set_payload_max_length(bytes); }

StatusOr<int> HttpServer::Start(const std::string& host, int port) {
  if (port == 0) {
    port_ = impl_->bind_to_any_port(host);
    if (port_ <= 0) return UnavailableError("cannot bind " + host + ":0");
  } else {
    if (!impl_->bind_to_port(host, port)) {
      return UnavailableError("cannot listen on " + host + ":" + std::to_string(port) +
                              " (in use or not permitted?)");
    }
    port_ = port;
  }
  thread_ = std::thread([this] { impl_->listen_after_bind(); });
  // httplib's stop() does nothing until the accept loop runs, so a Stop right after Start
  // would leave the thread serving forever: wait for the loop (it starts at once).
  while (!impl_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return port_;
}

void HttpServer::Stop() {
  if (impl_) impl_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace gpufleet
