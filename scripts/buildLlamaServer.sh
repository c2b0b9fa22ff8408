#!/usr/bin/env bash
# Builds llama.cpp's llama-server from the source node-llama-cpp ships (a git bundle), once, into a
# cache folder outside the repository. Prints the binary's path. Offline: no download.
# The server engine's tests and bench:server use it; .ci/run calls this before the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
llama=node_modules/node-llama-cpp/llama
tag=$(node -p "require('./$llama/llama.cpp.info.json').tag")
cache="${KEEL_CACHE:-$HOME/.cache/keel}/llama-server-$tag"
bin="$cache/build/bin/llama-server"
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi
mkdir -p "$cache"
if [ ! -d "$cache/src/.git" ]; then
  rm -rf "$cache/src"
  git clone -q "$llama/gitRelease.bundle" "$cache/src" >&2
fi
cmake -S "$cache/src" -B "$cache/build" -DLLAMA_CURL=OFF -DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF \
  -DLLAMA_BUILD_EXAMPLES=OFF -DCMAKE_BUILD_TYPE=Release >&2
cmake --build "$cache/build" --target llama-server -j"$(nproc)" >&2
echo "$bin"
