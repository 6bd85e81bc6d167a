#!/bin/bash
# What a fresh clone downloads, step by step: this commit exported to a new folder, an
# empty Deno cache (DENO_DIR), then the first run (demo), the first audio call, the
# install, and the tests' packages; after each, the cache and the clone's node_modules
# in MB (du). Needs the npm registry. Usage: scripts/measure_downloads.sh [DIR]
set -eu
dir=${1:-$(mktemp -d)}
mkdir -p "$dir/clone"
git archive HEAD | tar -x -C "$dir/clone"
cd "$dir/clone"
export DENO_DIR="$dir/cache"
size() { du -sm "$1" 2>/dev/null | cut -f1 || echo 0; }
step() { echo "$1: cache $(size "$DENO_DIR") MB, node_modules $(size node_modules) MB"; }
deno task demo > /dev/null
step "first run (deno task demo)"
deno task -q cli eval --domain eva_airline --scenarios eva_airline__1_4_1 --agent oracle --audio \
  > /dev/null
step "first audio call (eval --audio)"
DENO_INSTALL_ROOT="$dir/bin" deno task install > /dev/null 2>&1
step "deno task install"
deno cache --lock=tests/deno.lock tests/*_test.ts src/*/*_test.ts src/*/*/*_test.ts > /dev/null 2>&1
step "the tests' packages (deno cache of every test file)"
