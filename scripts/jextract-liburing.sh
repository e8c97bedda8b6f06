#!/usr/bin/env bash
# Regenerates the FFM bindings of iouring-server (package dev.spindle.iouring.ffi) with jextract,
# where jextract is installed. The build never needs this: the checked-in bindings are written by
# hand in jextract's shape because jextract cannot be installed on our machines, and
# StructLayoutTest checks them against the C headers.
#
#   scripts/jextract-liburing.sh [output_dir]      (default: iouring-server/target/jextract)
#
# Env: JEXTRACT=/path/to/jextract (default: jextract on PATH).
# It writes to a scratch directory, not over the sources: diff the result against
# iouring-server/src/main/java/dev/spindle/iouring/ffi and take what you need. LibUringInline
# (Java versions of liburing's static inline helpers) has no generated counterpart.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

JEXTRACT="${JEXTRACT:-jextract}"
command -v "$JEXTRACT" >/dev/null 2>&1 ||
  spindle_die "jextract not found (set JEXTRACT or put it on PATH; builds: https://jdk.java.net/jextract/)"
header=/usr/include/liburing.h
[[ -f "$header" ]] || spindle_die "$header is missing (Debian: apt-get install liburing-dev)"

out="${1:-$SPINDLE_ROOT/iouring-server/target/jextract}"
mkdir -p "$out"
pkg=dev.spindle.iouring.ffi

functions=(
  io_uring_queue_init_params io_uring_queue_exit io_uring_get_sqe io_uring_submit
  io_uring_submit_and_wait io_uring_submit_and_wait_timeout __io_uring_get_cqe
  io_uring_peek_batch_cqe io_uring_register_buf_ring io_uring_unregister_buf_ring
  io_uring_register_ring_fd io_uring_unregister_ring_fd io_uring_get_probe_ring io_uring_free_probe
)
structs=(
  io_uring_sqe io_uring_cqe io_sqring_offsets io_cqring_offsets io_uring_params io_uring_sq
  io_uring_cq io_uring io_uring_buf io_uring_buf_ring io_uring_buf_reg __kernel_timespec
  io_uring_probe_op io_uring_probe
)
# Every constant the hand-written LibUring defines, read from it so the two lists cannot drift.
ffi_dir="$SPINDLE_ROOT/iouring-server/src/main/java/dev/spindle/iouring/ffi"
mapfile -t uring_constants < <(sed -n 's/.*public static int \([A-Z][A-Z0-9_]*\)() .*/\1/p' "$ffi_dir/LibUring.java")
mapfile -t libc_constants < <(sed -n 's/.*public static int \([A-Z][A-Z0-9_]*\)() .*/\1/p' "$ffi_dir/Libc.java")

args=(--target-package "$pkg" --header-class-name LibUring --library :liburing.so.2 --output "$out")
for f in "${functions[@]}"; do args+=(--include-function "$f"); done
for s in "${structs[@]}"; do args+=(--include-struct "$s"); done
for c in "${uring_constants[@]}"; do args+=(--include-constant "$c"); done
echo "jextract: liburing -> $out" >&2
"$JEXTRACT" "${args[@]}" "$header"

# The libc side (sockets, eventfd, close, strerror), from a small umbrella header.
umbrella="$out/libc-umbrella.h"
cat >"$umbrella" <<'H'
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
H
args=(--target-package "$pkg" --header-class-name Libc --output "$out")
for f in socket setsockopt bind listen getsockname shutdown close eventfd eventfd_write strerror; do
  args+=(--include-function "$f")
done
for s in in_addr sockaddr_in sockaddr_in6; do args+=(--include-struct "$s"); done
for c in "${libc_constants[@]}"; do args+=(--include-constant "$c"); done
echo "jextract: libc -> $out" >&2
"$JEXTRACT" "${args[@]}" "$umbrella"
echo "generated into $out; compare with $ffi_dir" >&2
