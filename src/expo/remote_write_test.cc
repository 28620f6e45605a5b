#include "expo/remote_write.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <snappy.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "expo/prompb/remote.pb.h"

namespace gpufleet {
namespace {

using ::testing::HasSubstr;

std::string Compress(const std::string& raw) {
  std::string out;
  snappy::Compress(raw.data(), raw.size(), &out);
  return out;
}

// Builds a TimeSeries with libprotobuf, so the hand-written decoder is checked against the
// reference encoder (label order as given: tests use it to send unsorted labels).
void AddSeries(prompb::WriteRequest* request,
               const std::vector<std::pair<std::string, std::string>>& labels,
               const std::vector<std::pair<int64_t, double>>& samples) {
  prompb::TimeSeries* ts = request->add_timeseries();
  for (const auto& [name, value] : labels) {
    prompb::Label* label = ts->add_labels();
    label->set_name(name);
    label->set_value(value);
  }
  for (const auto& [t, v] : samples) {
    prompb::Sample* sample = ts->add_samples();
    sample->set_timestamp(t);
    sample->set_value(v);
  }
}

std::string Body(const prompb::WriteRequest& request) {
  return Compress(request.SerializeAsString());
}

TEST(RemoteWriteTest, RoundTripsThroughEncodeAndDecode) {
  RemoteWriteRequest request;
  request.series.reserve(2);  // `a` must stay valid across the second emplace_back
  RemoteWriteSeries& a = request.series.emplace_back();
  a.labels = Labels{{"__name__", "gpu_power_watts"}, {"gpu", "0"}, {"node", "n1"}};
  a.samples = {{1'700'000'000'000, 312.5}, {1'700'000'001'000, -1.25}};
  RemoteWriteSeries& b = request.series.emplace_back();
  b.labels = Labels{{"__name__", "gpu_up"}, {"uuid", "GPU-\xc3\xa9"}};
  b.samples = {{-5, std::numeric_limits<double>::infinity()}};

  RemoteWriteDecodeStats stats;
  auto decoded = DecodeRemoteWrite(EncodeRemoteWrite(request), RemoteWriteLimits{}, &stats);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ASSERT_EQ(decoded->series.size(), 2u);
  EXPECT_EQ(decoded->series[0].labels, a.labels);
  ASSERT_EQ(decoded->series[0].samples.size(), 2u);
  EXPECT_EQ(decoded->series[0].samples[1].timestamp_ms, 1'700'000'001'000);
  EXPECT_EQ(decoded->series[0].samples[1].value, -1.25);
  EXPECT_EQ(decoded->series[1].labels, b.labels);
  EXPECT_EQ(decoded->series[1].samples[0].timestamp_ms, -5);
  EXPECT_TRUE(std::isinf(decoded->series[1].samples[0].value));
  EXPECT_EQ(stats.series_accepted, 2u);
  EXPECT_EQ(stats.samples_accepted, 3u);
  EXPECT_EQ(stats.series_rejected, 0u);
  EXPECT_TRUE(stats.errors.empty());
}

TEST(RemoteWriteTest, EncodedBodyParsesWithLibprotobuf) {
  RemoteWriteRequest request;
  RemoteWriteSeries& a = request.series.emplace_back();
  a.labels = Labels{{"gpu", "3"}, {"__name__", "gpu_temperature_celsius"}};
  a.samples = {{42, 71}};
  std::string body = EncodeRemoteWrite(request);
  std::string raw;
  ASSERT_TRUE(snappy::Uncompress(body.data(), body.size(), &raw));
  prompb::WriteRequest parsed;
  ASSERT_TRUE(parsed.ParseFromString(raw));
  ASSERT_EQ(parsed.timeseries_size(), 1);
  // Sorted by name, as the spec requires.
  EXPECT_EQ(parsed.timeseries(0).labels(0).name(), "__name__");
  EXPECT_EQ(parsed.timeseries(0).labels(1).name(), "gpu");
  EXPECT_EQ(parsed.timeseries(0).samples(0).timestamp(), 42);
  EXPECT_EQ(parsed.timeseries(0).samples(0).value(), 71);
}

TEST(RemoteWriteTest, KeepsStaleMarkerBitsAndSkipsEmptyValues) {
  constexpr uint64_t kStaleNaN = 0x7ff0000000000002ull;
  double stale = 0;
  std::memcpy(&stale, &kStaleNaN, sizeof stale);
  prompb::WriteRequest request;
  AddSeries(&request, {{"__name__", "m"}, {"empty", ""}, {"x", "1"}}, {{1, stale}});
  auto decoded = DecodeRemoteWrite(Body(request), RemoteWriteLimits{}, nullptr);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ASSERT_EQ(decoded->series.size(), 1u);
  EXPECT_EQ(decoded->series[0].labels, (Labels{{"__name__", "m"}, {"x", "1"}}));
  uint64_t bits = 0;
  std::memcpy(&bits, &decoded->series[0].samples[0].value, sizeof bits);
  EXPECT_EQ(bits, kStaleNaN);
}

// The decoder reads the usual encoding of labels and samples on a short
// path and everything else on the general one: fields in another order,
// lengths of 128 bytes and more, a sample without its value or with
// unknown fields decode as libprotobuf reads them.
TEST(RemoteWriteTest, UnusualEncodingsDecodeAsLibprotobufReadsThem) {
  auto field = [](int number, int wire, const std::string& payload) {
    std::string out(1, static_cast<char>(number << 3 | wire));
    size_t n = payload.size();
    do {
      out += static_cast<char>((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
      n >>= 7;
    } while (n > 0);
    return out + payload;
  };
  auto label = [&](const std::string& name, const std::string& value, bool value_first) {
    return value_first ? field(2, 2, value) + field(1, 2, name)
                       : field(1, 2, name) + field(2, 2, value);
  };
  auto fixed64 = [](double v) {
    std::string out(1, 0x09);
    out.append(reinterpret_cast<const char*>(&v), 8);
    return out;
  };
  const std::string long_value(200, 'v');
  std::string series =
      field(1, 2, label("__name__", "m", false)) +
      field(1, 2, label("a", "1", true)) +                             // value before name
      field(1, 2, label("b", long_value, false)) +                     // a 2-byte length
      field(1, 2, field(1, 2, "c") + "\x18\x05" + field(2, 2, "3")) +  // unknown field
      field(2, 2, std::string("\x10\x64") + fixed64(2.5)) +            // time first
      field(2, 2, "\x10\x65") +                                        // no value
      field(2, 2, fixed64(4.5) + "\x10\xe8\x07");                      // the usual
  const std::string raw = field(1, 2, series);
  prompb::WriteRequest reference;
  ASSERT_TRUE(reference.ParseFromString(raw));
  ASSERT_EQ(reference.timeseries_size(), 1);

  auto decoded = DecodeRemoteWrite(Compress(raw), RemoteWriteLimits{}, nullptr);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ASSERT_EQ(decoded->series.size(), 1u);
  const RemoteWriteSeries& got = decoded->series[0];
  const prompb::TimeSeries& want = reference.timeseries(0);
  ASSERT_EQ(got.labels.size(), static_cast<size_t>(want.labels_size()));
  for (int i = 0; i < want.labels_size(); ++i) {
    EXPECT_EQ(got.labels.Get(want.labels(i).name()), want.labels(i).value()) << i;
  }
  EXPECT_EQ(got.labels.Get("b"), long_value);
  ASSERT_EQ(got.samples.size(), static_cast<size_t>(want.samples_size()));
  for (int i = 0; i < want.samples_size(); ++i) {
    EXPECT_EQ(got.samples[i].timestamp_ms, want.samples(i).timestamp()) << i;
    EXPECT_EQ(got.samples[i].value, want.samples(i).value()) << i;
  }
  EXPECT_EQ(got.samples[2].timestamp_ms, 1000);
}

TEST(RemoteWriteTest, DropsInvalidSeriesAndKeepsValidOnes) {
  prompb::WriteRequest request;
  AddSeries(&request, {{"__name__", "ok_a"}}, {{1, 1}});
  AddSeries(&request, {{"gpu", "0"}}, {{1, 1}, {2, 2}});                        // no __name__
  AddSeries(&request, {{"1bad", "x"}, {"__name__", "m"}}, {{1, 1}});           // bad name
  AddSeries(&request, {{"__name__", "m"}, {"a", "1"}, {"a", "2"}}, {{1, 1}});  // duplicate
  AddSeries(&request, {{"__name__", "m"}, {"b", "1"}, {"a", "2"}}, {{1, 1}});  // unsorted
  AddSeries(&request, {{"__name__", "9metric"}}, {{1, 1}});                    // bad metric
  AddSeries(&request, {{"__name__", "m"}, {"v", "\xff\xfe"}}, {{1, 1}});       // not UTF-8
  AddSeries(&request, {{"__name__", "ok_b"}}, {{3, 3}});
  RemoteWriteDecodeStats stats;
  auto decoded = DecodeRemoteWrite(Body(request), RemoteWriteLimits{}, &stats);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ASSERT_EQ(decoded->series.size(), 2u);
  EXPECT_EQ(decoded->series[0].labels.Get("__name__"), "ok_a");
  EXPECT_EQ(decoded->series[1].labels.Get("__name__"), "ok_b");
  EXPECT_EQ(stats.series_accepted, 2u);
  EXPECT_EQ(stats.series_rejected, 6u);
  EXPECT_EQ(stats.samples_accepted, 2u);
  EXPECT_EQ(stats.samples_rejected, 7u);
  ASSERT_EQ(stats.errors.size(), 6u);
  EXPECT_THAT(stats.errors[0], HasSubstr("series 1: no __name__"));
  EXPECT_THAT(stats.errors[1], HasSubstr("series 2: label name \"1bad\" is invalid"));
  EXPECT_THAT(stats.errors[2], HasSubstr("duplicated"));
  EXPECT_THAT(stats.errors[3], HasSubstr("not sorted"));
  EXPECT_THAT(stats.errors[4], HasSubstr("metric name \"9metric\""));
  EXPECT_THAT(stats.errors[5], HasSubstr("UTF-8"));
}

TEST(RemoteWriteTest, EnforcesLabelFloodLimits) {
  RemoteWriteLimits limits;
  limits.max_labels_per_series = 3;
  limits.max_label_bytes = 8;
  prompb::WriteRequest request;
  AddSeries(&request, {{"__name__", "m"}, {"a", "1"}, {"b", "2"}, {"c", "3"}}, {{1, 1}});
  AddSeries(&request, {{"__name__", "m"}, {"a", "123456789"}}, {{1, 1}});
  AddSeries(&request, {{"__name__", "m"}, {"a", "12345678"}}, {{1, 1}});
  RemoteWriteDecodeStats stats;
  auto decoded = DecodeRemoteWrite(Body(request), limits, &stats);
  ASSERT_TRUE(decoded.ok());
  ASSERT_EQ(decoded->series.size(), 1u);
  EXPECT_EQ(decoded->series[0].labels.Get("a"), "12345678");
  ASSERT_EQ(stats.errors.size(), 2u);
  EXPECT_THAT(stats.errors[0], HasSubstr("4 labels exceed the limit of 3"));
  EXPECT_THAT(stats.errors[1], HasSubstr("longer than 8 bytes"));
}

TEST(RemoteWriteTest, RejectsTimestampsThatOverflowNanoseconds) {
  prompb::WriteRequest request;
  AddSeries(&request, {{"__name__", "m"}},
            {{1, 1}, {std::numeric_limits<int64_t>::max(), 2}, {std::numeric_limits<int64_t>::min(), 3}});
  RemoteWriteDecodeStats stats;
  auto decoded = DecodeRemoteWrite(Body(request), RemoteWriteLimits{}, &stats);
  ASSERT_TRUE(decoded.ok());
  ASSERT_EQ(decoded->series.size(), 1u);
  ASSERT_EQ(decoded->series[0].samples.size(), 1u);
  EXPECT_EQ(stats.samples_accepted, 1u);
  EXPECT_EQ(stats.samples_rejected, 2u);
  EXPECT_THAT(stats.errors[0], HasSubstr("out of range"));
}

TEST(RemoteWriteTest, SkipsUnknownFields) {
  prompb::WriteRequest request;
  AddSeries(&request, {{"__name__", "m"}}, {{7, 8}});
  std::string raw = request.SerializeAsString();
  // Field 3 (metadata in newer senders) as a length-delimited blob, field 15 as a varint,
  // field 9 as fixed32: a 1.0 receiver must skip all of them.
  raw += std::string("\x1a\x03" "abc" "\x78\x96\x01" "\x4d\x01\x02\x03\x04", 13);
  auto decoded = DecodeRemoteWrite(Compress(raw), RemoteWriteLimits{}, nullptr);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ASSERT_EQ(decoded->series.size(), 1u);
  EXPECT_EQ(decoded->series[0].samples[0].value, 8);
}

TEST(RemoteWriteTest, BadSnappyNamesSnappy) {
  auto decoded = DecodeRemoteWrite("\xff\xff\xff\xff\xff\xff", RemoteWriteLimits{}, nullptr);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(decoded.status().message(), HasSubstr("snappy offset 0"));

  std::string body = Compress(std::string(100, 'x'));
  body.resize(body.size() - 2);
  decoded = DecodeRemoteWrite(body, RemoteWriteLimits{}, nullptr);
  ASSERT_FALSE(decoded.ok());
  EXPECT_THAT(decoded.status().message(), HasSubstr("snappy"));
}

TEST(RemoteWriteTest, TruncatedProtobufNamesOffset) {
  prompb::WriteRequest request;
  AddSeries(&request, {{"__name__", "m"}}, {{7, 8}});
  std::string raw = request.SerializeAsString();
  raw.resize(raw.size() - 3);
  auto decoded = DecodeRemoteWrite(Compress(raw), RemoteWriteLimits{}, nullptr);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(decoded.status().message(), HasSubstr("protobuf offset 1: length"));

  // A varint that never ends.
  decoded = DecodeRemoteWrite(Compress(std::string(12, '\xff')), RemoteWriteLimits{}, nullptr);
  ASSERT_FALSE(decoded.ok());
  EXPECT_THAT(decoded.status().message(), HasSubstr("varint"));

  // Deprecated group wire type.
  decoded = DecodeRemoteWrite(Compress("\x0b"), RemoteWriteLimits{}, nullptr);
  ASSERT_FALSE(decoded.ok());
  EXPECT_THAT(decoded.status().message(), HasSubstr("wire type 3"));
}

// Decoding into one request again and again (as each ingest thread does)
// gives each batch exactly what a fresh decode gives: more series, fewer
// series, fewer labels, an invalid series, then an undecodable body (empty).
TEST(RemoteWriteTest, DecodeIntoAReusedRequestEqualsAFreshDecode) {
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  const std::string long_value(40, 'v');  // past the small-string buffer
  std::vector<std::string> bodies;
  prompb::WriteRequest first;
  AddSeries(&first, Pairs{{"__name__", "a"}, {"gpu_uuid", long_value}, {"node", "n1"}}, {{1, 1}});
  AddSeries(&first, Pairs{{"__name__", "b"}, {"node", "n1"}}, {{1, 2}, {2, 3}});
  bodies.push_back(Body(first));
  prompb::WriteRequest second;
  AddSeries(&second, Pairs{{"__name__", "c"}, {"x", ""}}, {{5, 5}});
  bodies.push_back(Body(second));
  prompb::WriteRequest third;
  for (int i = 0; i < 3; ++i) {
    AddSeries(&third, Pairs{{"__name__", "d"}, {"i", std::to_string(i)}, {"z", long_value}},
              {{i, 1.0 * i}});
  }
  AddSeries(&third, Pairs{{"node", "no name"}}, {{1, 1}});  // rejected
  bodies.push_back(Body(third));
  bodies.push_back(Body(second));

  RemoteWriteRequest reused;
  for (const std::string& body : bodies) {
    RemoteWriteDecodeStats fresh_stats, reused_stats;
    auto fresh = DecodeRemoteWrite(body, RemoteWriteLimits{}, &fresh_stats);
    ASSERT_TRUE(fresh.ok());
    ASSERT_TRUE(DecodeRemoteWriteInto(body, RemoteWriteLimits{}, &reused_stats, &reused).ok());
    ASSERT_EQ(reused.series.size(), fresh->series.size());
    for (size_t i = 0; i < reused.series.size(); ++i) {
      EXPECT_EQ(reused.series[i].labels, fresh->series[i].labels);
      ASSERT_EQ(reused.series[i].samples.size(), fresh->series[i].samples.size());
      for (size_t k = 0; k < reused.series[i].samples.size(); ++k) {
        EXPECT_EQ(reused.series[i].samples[k].timestamp_ms,
                  fresh->series[i].samples[k].timestamp_ms);
        EXPECT_EQ(reused.series[i].samples[k].value, fresh->series[i].samples[k].value);
      }
    }
    EXPECT_EQ(reused_stats.series_rejected, fresh_stats.series_rejected);
    EXPECT_EQ(reused_stats.errors, fresh_stats.errors);
  }
  ASSERT_EQ(reused.series.size(), 1u);
  EXPECT_EQ(reused.series[0].labels, (Labels{{"__name__", "c"}}));
  Status bad = DecodeRemoteWriteInto("\x0b", RemoteWriteLimits{}, nullptr, &reused);
  EXPECT_FALSE(bad.ok());
  EXPECT_TRUE(reused.series.empty());
}

TEST(RemoteWriteTest, RejectsBodiesOverTheLimits) {
  RemoteWriteLimits limits;
  limits.max_decompressed_bytes = 1000;
  auto decoded = DecodeRemoteWrite(Compress(std::string(1001, '\0')), limits, nullptr);
  ASSERT_FALSE(decoded.ok());
  EXPECT_THAT(decoded.status().message(), HasSubstr("exceeds the limit of 1000 bytes"));

  limits = RemoteWriteLimits{};
  limits.max_series = 2;
  prompb::WriteRequest request;
  for (int i = 0; i < 3; ++i) AddSeries(&request, {{"__name__", "m"}}, {{i, 1}});
  decoded = DecodeRemoteWrite(Body(request), limits, nullptr);
  ASSERT_FALSE(decoded.ok());
  EXPECT_THAT(decoded.status().message(), HasSubstr("more than 2 series"));
}

TEST(RemoteWriteTest, EmptyRequestDecodesToNoSeries) {
  auto decoded = DecodeRemoteWrite(EncodeRemoteWrite({}), RemoteWriteLimits{}, nullptr);
  ASSERT_TRUE(decoded.ok());
  EXPECT_TRUE(decoded->series.empty());
}

TEST(RemoteWriteTest, ToRemoteWriteGroupsSeriesAndFillsTimestamps) {
  std::vector<Sample> samples = {
      {"gpu_power_watts", Labels{{"gpu", "0"}}, 100, 5'000'000'000},
      {"gpu_power_watts", Labels{{"gpu", "1"}}, 200, 0},
      {"gpu_power_watts", Labels{{"gpu", "0"}}, 110, 6'000'999'999},
      {"gpu_up", Labels{{"gpu", "0"}}, 1, 0},
  };
  RemoteWriteRequest request = ToRemoteWrite(samples, 777);
  ASSERT_EQ(request.series.size(), 3u);
  EXPECT_EQ(request.series[0].labels,
            (Labels{{"__name__", "gpu_power_watts"}, {"gpu", "0"}}));
  ASSERT_EQ(request.series[0].samples.size(), 2u);
  EXPECT_EQ(request.series[0].samples[0].timestamp_ms, 5000);
  EXPECT_EQ(request.series[0].samples[1].timestamp_ms, 6000);
  EXPECT_EQ(request.series[0].samples[1].value, 110);
  EXPECT_EQ(request.series[1].samples[0].timestamp_ms, 777);
  EXPECT_EQ(request.series[2].labels.Get("__name__"), "gpu_up");
}

}  // namespace
}  // namespace gpufleet
