#!/usr/bin/env bash
# Build bbpPairings (the FIDE Dutch and Burstein engines the Swiss quality bench compares with) from source.
#
#   bench/bbppairings.sh [SOURCE] [OUT_DIR]
#
# SOURCE is a git directory (a bare mirror or a checkout's .git) or a clone URL; default
# https://github.com/BieremaBoyzProgramming/bbpPairings. The v6.0.0 tag is built when present (else the
# default branch's head); BBP_REF=<tag or commit> picks another. OUT_DIR defaults to the directory of
# $ARBITER_BBPPAIRINGS, else /work/tools/bbpPairings, which is where bench/swiss_quality_bench.py looks
# for bbpPairings.exe. Needs git, make and a C++20 g++; nothing of bbpPairings enters this repository.
set -euo pipefail

source="${1:-https://github.com/BieremaBoyzProgramming/bbpPairings}"
if [[ -n "${2:-}" ]]; then
  out="$2"
elif [[ -n "${ARBITER_BBPPAIRINGS:-}" ]]; then
  out="$(dirname "$ARBITER_BBPPAIRINGS")"
else
  out=/work/tools/bbpPairings
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [[ -d "$source" ]]; then
  gitdir="$source"
else
  git clone --quiet --bare "$source" "$work/repo.git"
  gitdir="$work/repo.git"
fi

ref="${BBP_REF:-}"
if [[ -z "$ref" ]]; then
  if git --git-dir="$gitdir" rev-parse --verify --quiet "refs/tags/v6.0.0^{commit}" >/dev/null; then
    ref=v6.0.0
  else
    ref=HEAD
  fi
fi
commit="$(git --git-dir="$gitdir" rev-parse --verify "$ref^{commit}")"
version="$(git --git-dir="$gitdir" describe --tags --always "$commit")"

mkdir -p "$work/src"
git --git-dir="$gitdir" archive "$commit" | tar -x -C "$work/src"
# An archive has no .git, so the version the binary reports is given to make.
make -C "$work/src" -j"$(nproc)" version="$version" bbpPairings.exe >"$work/build.log" 2>&1 || {
  tail -n 40 "$work/build.log" >&2
  exit 1
}

mkdir -p "$out"
install -m 0755 "$work/src/bbpPairings.exe" "$out/bbpPairings.exe"
cp "$work/src/LICENSE.txt" "$work/src/Apache-2.0.txt" "$out/"
echo "$version $commit" >"$out/VERSION"
echo "bbpPairings $version ($commit) built into $out/bbpPairings.exe"
