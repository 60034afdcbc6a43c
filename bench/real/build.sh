#!/bin/sh
# build.sh: the real programs of the benchmark (issue 13: "zlib-class real
# programs"), built unchanged with their own build systems from Debian 12's
# source packages: zlib's minigzip, lz4 and bzip2, each four times like the
# kernels (native clang-19 -O2, pisa-cc, pisa-cc --mode=counter, pisa-cc
# --mode=footprint), and the input they compress.  bench/README.md "Real programs" says how to run them.
#
# usage: bench/real/build.sh BUILD [OUT]
#   BUILD  the pisa-char build directory (BUILD/bin/pisa-cc)
#   OUT    where native/, pisa/, counter/, footprint/ and input.txt go
#          (default BUILD/bench/real)
# Needs network access to deb.debian.org (the sources come through apt-get
# with a private list directory: the machine's apt configuration is not
# touched) and clang-19, make.
set -eu

die() { echo "build.sh: $*" >&2; exit 1; }

[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: build.sh BUILD [OUT]"
build=$(cd "$1" 2>/dev/null && pwd) || die "$1: no such directory"
pisa_cc=$build/bin/pisa-cc
[ -x "$pisa_cc" ] || die "$pisa_cc: not built (cmake --build $1 first)"
command -v clang-19 >/dev/null || die "clang-19 not found"
out=${2:-$build/bench/real}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$out/work
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"

# The source packages (versions of Debian 12), fetched once.
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
  "http://deb.debian.org/debian bookworm main" >"$work/sources.list"
apt_private() {
  apt-get -q -o Dir::Etc::sourcelist="$work/sources.list" \
    -o Dir::Etc::sourceparts=/nonexistent \
    -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache" "$@"
}
if ! ls "$work"/zlib_*.orig.tar.* "$work"/lz4_*.orig.tar.* \
  "$work"/bzip2_*.orig.tar.* >/dev/null 2>&1; then
  apt_private update >/dev/null ||
    die "cannot read the source lists from deb.debian.org"
  (cd "$work" && apt_private source --download-only zlib lz4 bzip2 \
    >/dev/null 2>&1) || die "cannot download the source packages"
fi

# unpack PACKAGE DEST: a fresh copy of the package's upstream sources.
unpack() {
  rm -rf "$2"
  mkdir -p "$2"
  tar xf "$(ls "$work/$1"_*.orig.tar.*)" -C "$2" --strip-components=1
}

# build_one VARIANT CC: the three programs built with CC into OUT/VARIANT.
build_one() {
  variant=$1
  cc=$2
  src=$work/src-$variant
  mkdir -p "$out/$variant"
  unpack zlib "$src/zlib"
  (cd "$src/zlib" && CC="$cc" CFLAGS=-O2 ./configure --static &&
    make minigzip) >"$src/zlib.log" 2>&1 ||
    die "zlib ($variant) did not build: see $src/zlib.log"
  cp "$src/zlib/minigzip" "$out/$variant/minigzip"
  unpack lz4 "$src/lz4"
  make -C "$src/lz4/programs" lz4 CC="$cc" CFLAGS=-O2 >"$src/lz4.log" 2>&1 ||
    die "lz4 ($variant) did not build: see $src/lz4.log"
  cp "$src/lz4/programs/lz4" "$out/$variant/lz4"
  unpack bzip2 "$src/bzip2"
  # its Makefile adds -g, whose DWARF 5 valgrind 3.19 cannot read
  make -C "$src/bzip2" bzip2 CC="$cc" CFLAGS="-O2 -D_FILE_OFFSET_BITS=64" \
    >"$src/bzip2.log" 2>&1 ||
    die "bzip2 ($variant) did not build: see $src/bzip2.log"
  cp "$src/bzip2/bzip2" "$out/$variant/bzip2"
}

build_one native clang-19
build_one pisa "$pisa_cc"
build_one counter "$pisa_cc --mode=counter"
build_one footprint "$pisa_cc --mode=footprint"

# The input: the three packages' own C sources and texts, in a fixed
# order, repeated to 24 MiB (zlib's window is 32 KiB, lz4's 64 KiB and a
# bzip2 block 900 KB: the repetitions, 2.8 MB apart, are no easier to
# compress than fresh text of the same kind).
corpus=$work/corpus
(cd "$work/src-native" && find zlib lz4 bzip2 -type f \
  \( -name '*.c' -o -name '*.h' -o -name '*.txt' -o -name '*.md' \
  -o -name '*.html' -o -name 'README*' -o -name 'ChangeLog' \) |
  LC_ALL=C sort | xargs cat) >"$corpus"
[ -s "$corpus" ] || die "no sources to make the input of"
size=25165824
: >"$out/input.txt"
while [ "$(stat -c %s "$out/input.txt")" -lt $size ]; do
  cat "$corpus" >>"$out/input.txt"
done
truncate -s $size "$out/input.txt"

in=$out/input.txt
echo "built in $out; run the benchmark with:"
echo "  $build/bench/pisa-bench --dir $out --output-checksum" \
  "--kernels minigzip,lz4,bzip2" \
  "--args minigzip=-c:$in,lz4=-c:-9:$in,bzip2=-c:$in [options]"
