#!/usr/bin/env bash
# Prints the bin folder of a Node.js that meets package.json's `engines.node` (the one place that
# says which Node Keel needs), for CI to put first on PATH: the machine's own node where it meets it;
# otherwise Node 22 from the npm registry's node-linux-<arch> package (the official build, with the
# headers native addons compile against), cached in ~/.cache/keel. Prints the reason on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
version=22.23.5

meets='
  const wanted = /^>=\s*(\d+)\.(\d+)/.exec(require("./package.json").engines.node);
  if (!wanted) { console.error("package.json engines.node is not >=MAJOR.MINOR"); process.exit(2); }
  const [major, minor] = process.versions.node.split(".").map(Number);
  process.exit(major > +wanted[1] || (major === +wanted[1] && minor >= +wanted[2]) ? 0 : 1);
'
status=0
node -e "$meets" || status=$?
if [ "$status" = 0 ]; then
  dirname "$(command -v node)"
  exit 0
fi
[ "$status" = 1 ] || exit "$status"
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "no node-linux package for $(uname -m): install Node.js $(node -p 'require("./package.json").engines.node') by hand" >&2; exit 1 ;;
esac
dir="${XDG_CACHE_HOME:-$HOME/.cache}/keel/node-v$version-$arch"
bin="$dir/node_modules/node-linux-$arch/bin"
if [ ! -x "$bin/node" ]; then
  echo "node $(node --version) is older than package.json's engines.node: installing node-linux-$arch@$version from the npm registry into $dir" >&2
  npm install --no-save --no-package-lock --prefix "$dir" "node-linux-$arch@$version" >&2
fi
PATH="$bin:$PATH" node -e "$meets"
echo "$bin"
