#!/usr/bin/env bash
# Run once after the branches are merged: applies ESLint's safe fixes, then Prettier, to the whole
# codebase, then runs the two checks it answers for. Commit the result as one formatting commit.
set -euo pipefail
cd "$(dirname "$0")/.."
npx eslint --fix . || true # what it cannot fix is listed again by `npm run lint` below
rm -rf node_modules/.cache/prettier node_modules/.cache/eslint
# Twice and without the cache: Prettier settles a few long member chains only on its second pass.
for pass in 1 2; do npx prettier --write --log-level warn "**/*.{ts,tsx,mts,cts,js,mjs,cjs}"; done
git status --short | wc -l | xargs printf '%s files changed by the formatter and the fixes\n'
npm run lint
npm run format:check
