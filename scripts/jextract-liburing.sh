#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Generates the FFM bindings of iouring-server (package dev.spindle.iouring.ffi) with jextract from
# the installed liburing 2.3 and glibc headers, into iouring-server/src/generated/java, which is
# committed and compiled as a source root of its own. Nobody edits those files: change the lists
# below and run this again.
#
#   scripts/jextract-liburing.sh           regenerate the committed bindings
#   scripts/jextract-liburing.sh --check   generate into a temporary directory and compare with the
#                                          committed ones; exit 1 with the diff if they differ (CI)
#
# Env: JEXTRACT=/path/to/jextract (default: jextract on PATH, else shared/tools/jextract/jextract
# beside the checkout, which builds itself on first use).
#
# Only what the server uses is generated (--include-*). What jextract cannot do stays hand-written
# in dev.spindle.iouring: liburing's static inline helpers (SubmissionQueue, CompletionQueue,
# BufferRing do them on the mapped memory) and errno capture (Errno).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

# liburing-dev: the headers; libclang for jextract (its wrapper would install them too).
spindle_ensure_packages liburing-dev libclang1-14 libclang-common-14-dev
spindle_find_jdk
if [[ -n "${JEXTRACT:-}" ]]; then
  :
elif command -v jextract >/dev/null 2>&1; then
  JEXTRACT=jextract
elif [[ -x "$SPINDLE_ROOT/../shared/tools/jextract/jextract" ]]; then
  JEXTRACT="$SPINDLE_ROOT/../shared/tools/jextract/jextract"
else
  spindle_die "jextract not found: set JEXTRACT, put it on PATH, or have shared/tools/jextract beside the checkout"
fi

committed="$SPINDLE_ROOT/iouring-server/src/generated/java"
pkg=dev.spindle.iouring.ffi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
out="$tmp/java"
mkdir -p "$out"

# liburing: ring setup and teardown (Ring, IoUring), the one call per loop iteration, provided
# buffer rings (BufferRing), the ops probe (IoUring).
functions=(
  io_uring_queue_init_params io_uring_queue_exit io_uring_submit io_uring_submit_and_wait_timeout
  io_uring_register_ring_fd io_uring_unregister_ring_fd io_uring_register_buf_ring
  io_uring_unregister_buf_ring io_uring_get_probe_ring io_uring_free_probe
)
# io_sqring_offsets and io_cqring_offsets are members of io_uring_params.
structs=(
  io_uring io_uring_sq io_uring_cq io_uring_sqe io_uring_cqe io_uring_params io_sqring_offsets
  io_cqring_offsets io_uring_buf io_uring_buf_ring io_uring_buf_reg __kernel_timespec
  io_uring_probe io_uring_probe_op
)
constants=(
  IORING_SETUP_SQPOLL IORING_SETUP_CQSIZE IORING_SETUP_SUBMIT_ALL IORING_SETUP_COOP_TASKRUN
  IORING_SETUP_SINGLE_ISSUER IORING_SETUP_DEFER_TASKRUN IORING_FEAT_CQE_SKIP
  IORING_OP_ACCEPT IORING_OP_CONNECT IORING_OP_RECV IORING_OP_SEND IORING_OP_READ IORING_OP_ASYNC_CANCEL
  IOSQE_BUFFER_SELECT IOSQE_CQE_SKIP_SUCCESS IORING_ACCEPT_MULTISHOT IORING_RECV_MULTISHOT
  IORING_CQE_F_BUFFER IORING_CQE_F_MORE IORING_CQE_BUFFER_SHIFT IO_URING_OP_SUPPORTED
)
args=(--target-package "$pkg" --header-class-name LibUring --library :liburing.so.2 --output "$out")
for f in "${functions[@]}"; do args+=(--include-function "$f"); done
for s in "${structs[@]}"; do args+=(--include-struct "$s"); done
for c in "${constants[@]}"; do args+=(--include-constant "$c"); done
"$JEXTRACT" "${args[@]}" /usr/include/liburing.h

# libc: the listening and outbound sockets (Sockets), whether connections wait in a listening
# socket's queue at shutdown (poll, RingAcceptor), the wake-up eventfd and closing (RingWorker),
# strerror (Errno), and the errno values the server tells apart (a refused or unreachable connect
# among them). No _GNU_SOURCE here: with it glibc declares bind/getsockname with transparent-union
# parameter types, which jextract passes as structs.
mkdir -p "$tmp/include"
cat >"$tmp/include/libc.h" <<'H'
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
H
functions=(socket setsockopt bind listen getsockname shutdown close poll eventfd eventfd_write strerror)
# in_addr and in6_addr are members of the sockaddrs.
structs=(sockaddr_in sockaddr_in6 in_addr in6_addr pollfd)
constants=(
  AF_INET AF_INET6 SOCK_STREAM SOCK_NONBLOCK SOCK_CLOEXEC SOL_SOCKET SO_REUSEADDR SO_REUSEPORT IPPROTO_TCP
  TCP_NODELAY SHUT_WR EFD_CLOEXEC MSG_NOSIGNAL POLLIN
  EPERM ENOENT EINTR EAGAIN ENOMEM EBUSY EINVAL ENFILE EMFILE ENOSYS ETIME ENOBUFS EALREADY ECANCELED
  ECONNREFUSED ETIMEDOUT EHOSTUNREACH ENETUNREACH
)
args=(--target-package "$pkg" --header-class-name Libc --output "$out")
for f in "${functions[@]}"; do args+=(--include-function "$f"); done
for s in "${structs[@]}"; do args+=(--include-struct "$s"); done
for c in "${constants[@]}"; do args+=(--include-constant "$c"); done
"$JEXTRACT" "${args[@]}" "$tmp/include/libc.h"

if (( check )); then
  if ! diff -r -u "$committed" "$out" >"$tmp/diff"; then
    cat "$tmp/diff"
    echo "error: iouring-server/src/generated/java differs from a fresh jextract run (above: committed -> generated); run scripts/jextract-liburing.sh and commit the result" >&2
    exit 1
  fi
  echo "jextract bindings: iouring-server/src/generated/java matches a fresh generation" >&2
else
  rm -rf "${committed:?}/dev"
  mkdir -p "$committed"
  cp -r "$out/." "$committed/"
  echo "generated $(find "$committed" -name '*.java' | wc -l) files into ${committed#"$SPINDLE_ROOT/"}" >&2
fi
