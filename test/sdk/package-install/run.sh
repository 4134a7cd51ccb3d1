#!/usr/bin/env bash
# CI step: the SDKs as a client developer gets them. Packs both SDK packages
# (`npm pack`, which builds and checks them), installs the tarballs into a
# fresh project OUTSIDE the repository, and there:
#   - runs an ESM (.mjs) and a CommonJS (.cjs) script against a running server;
#   - type-checks a TypeScript consumer with moduleResolution nodenext and bundler;
#   - bundles @clube/browser for the browser with esbuild and reports its gzipped size (budget 10 kB).
# Needs only Node 20 and the npm registry; the server runs on its embedded defaults.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../../.." && pwd)"
here="$repo/test/sdk/package-install"
work="$(mktemp -d "${TMPDIR:-/tmp}/clube-sdk-install.XXXXXX")"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
log() { printf '\n-- %s\n' "$*"; }
started=$SECONDS

log "npm pack (builds and checks dist/)"
(cd "$repo/sdk-node" && npm pack --silent --pack-destination "$work" >/dev/null)
(cd "$repo/sdk-browser" && npm pack --silent --pack-destination "$work" >/dev/null)
ls "$work"/*.tgz

log "fresh project in $work/app"
mkdir "$work/app"
cp "$here/smoke.mjs" "$here/smoke.cjs" "$here/consumer.ts" "$here/browser-entry.js" "$work/app/"
cd "$work/app"
printf '{ "name": "clube-sdk-consumer", "private": true, "version": "0.0.0" }\n' > package.json
# The same tool versions as the repository (read from its lockfile-pinned package.json).
tsv="$(node -p "require('$repo/package.json').devDependencies.typescript")"
# esbuild is a runtime dependency of the server (it compiles server/src at start), so it is not among the dev ones.
esv="$(node -p "require('$repo/package.json').dependencies.esbuild")"
ntv="$(node -p "require('$repo/package.json').devDependencies['@types/node']")"
npm install --no-audit --no-fund --silent "$work"/clube-node-*.tgz "$work"/clube-browser-*.tgz "typescript@$tsv" "esbuild@$esv" "@types/node@$ntv"
node -e "const p=require('./node_modules/@clube/node/package.json');if(p.dependencies&&Object.keys(p.dependencies).length)throw new Error('unexpected runtime deps')"

log "TypeScript consumer: nodenext and bundler"
for resolution in nodenext bundler; do
  module=$([ "$resolution" = nodenext ] && echo nodenext || echo esnext)
  npx tsc --noEmit --strict --skipLibCheck false --target es2022 --lib es2023,dom --types node \
    --module "$module" --moduleResolution "$resolution" consumer.ts
  echo "type-checks with moduleResolution $resolution"
done

log "server on its embedded defaults"
port="$(node -e "const s=require('net').createServer().listen(0,()=>{console.log(s.address().port);s.close()})")"
PORT="$port" CLUBE_DATA_DIR="$work/data" NODE_ENV=test node "$repo/server/bin/clube.mjs" serve > "$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 120); do
  if curl -sf "http://127.0.0.1:$port/v1/health" >/dev/null 2>&1 && [ -f "$work/data/demo-club.json" ]; then break; fi
  sleep 0.5
done
export CLUBE_URL="http://127.0.0.1:$port"
export CLUBE_KEY="$(node -p "require('$work/data/demo-club.json').keys.test")"

log "ESM and CommonJS against the server"
node smoke.mjs
node smoke.cjs

log "@clube/browser bundled for the browser"
npx esbuild browser-entry.js --bundle --minify --format=esm --platform=browser --target=es2020 --outfile=bundle.js --log-level=warning
bytes="$(gzip -9 -c bundle.js | wc -c)"
echo "@clube/browser page bundle: $(wc -c < bundle.js) B minified, $bytes B gzipped (budget 10240 B)"
[ "$bytes" -le 10240 ] || { echo "over the 10 kB budget" >&2; exit 1; }

echo "package install check passed in $((SECONDS - started)) s"
