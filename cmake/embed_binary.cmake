# cmake -DIN=<binary file> -DOUT=<file.inc> -P embed_binary.cmake
# Writes the bytes of IN as a comma-separated list of hex literals, to be
# #included inside an array initializer (src/canary/stream_kernels_embed.cc).
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" len)
if(len EQUAL 0)
  message(FATAL_ERROR "embed_binary: ${IN} is empty")
endif()
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
# Line breaks every 16 bytes keep the file readable by editors.
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n" body "${body}")
file(WRITE "${OUT}" "${body}\n")
