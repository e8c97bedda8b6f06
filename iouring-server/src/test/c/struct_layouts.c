// SPDX-License-Identifier: Apache-2.0
/*
 * Prints the layout of every C struct Spindle's io_uring bindings model, and the value of every
 * constant they define, one per line, for StructLayoutTest to compare with the Java side:
 *   sizeof <struct> <bytes>
 *   offsetof <struct> <field> <bytes>
 *   const <header class> <name> <value>
 * Compiled by the test: gcc -o target/struct-layouts src/test/c/struct_layouts.c (needs liburing-dev).
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <liburing.h>

#define SIZE(s) printf("sizeof %s %zu\n", #s, sizeof(struct s))
#define OFF(s, f) printf("offsetof %s %s %zu\n", #s, #f, offsetof(struct s, f))
#define CONST(h, c) printf("const %s %s %lld\n", #h, #c, (long long) (c))

int main(void)
{
	SIZE(io_uring_sqe);
	OFF(io_uring_sqe, opcode);
	OFF(io_uring_sqe, flags);
	OFF(io_uring_sqe, ioprio);
	OFF(io_uring_sqe, fd);
	OFF(io_uring_sqe, off);
	OFF(io_uring_sqe, addr2);
	OFF(io_uring_sqe, cmd_op);
	OFF(io_uring_sqe, __pad1);
	OFF(io_uring_sqe, addr);
	OFF(io_uring_sqe, splice_off_in);
	OFF(io_uring_sqe, len);
	OFF(io_uring_sqe, rw_flags);
	OFF(io_uring_sqe, fsync_flags);
	OFF(io_uring_sqe, poll_events);
	OFF(io_uring_sqe, poll32_events);
	OFF(io_uring_sqe, sync_range_flags);
	OFF(io_uring_sqe, msg_flags);
	OFF(io_uring_sqe, timeout_flags);
	OFF(io_uring_sqe, accept_flags);
	OFF(io_uring_sqe, cancel_flags);
	OFF(io_uring_sqe, open_flags);
	OFF(io_uring_sqe, statx_flags);
	OFF(io_uring_sqe, fadvise_advice);
	OFF(io_uring_sqe, splice_flags);
	OFF(io_uring_sqe, rename_flags);
	OFF(io_uring_sqe, unlink_flags);
	OFF(io_uring_sqe, hardlink_flags);
	OFF(io_uring_sqe, xattr_flags);
	OFF(io_uring_sqe, msg_ring_flags);
	OFF(io_uring_sqe, uring_cmd_flags);
	OFF(io_uring_sqe, user_data);
	OFF(io_uring_sqe, buf_index);
	OFF(io_uring_sqe, buf_group);
	OFF(io_uring_sqe, personality);
	OFF(io_uring_sqe, splice_fd_in);
	OFF(io_uring_sqe, file_index);
	OFF(io_uring_sqe, addr_len);
	OFF(io_uring_sqe, __pad3);
	OFF(io_uring_sqe, addr3);
	OFF(io_uring_sqe, __pad2);
	OFF(io_uring_sqe, cmd);
	SIZE(io_uring_cqe);
	OFF(io_uring_cqe, user_data);
	OFF(io_uring_cqe, res);
	OFF(io_uring_cqe, flags);
	OFF(io_uring_cqe, big_cqe);
	SIZE(io_sqring_offsets);
	OFF(io_sqring_offsets, head);
	OFF(io_sqring_offsets, tail);
	OFF(io_sqring_offsets, ring_mask);
	OFF(io_sqring_offsets, ring_entries);
	OFF(io_sqring_offsets, flags);
	OFF(io_sqring_offsets, dropped);
	OFF(io_sqring_offsets, array);
	OFF(io_sqring_offsets, resv1);
	OFF(io_sqring_offsets, resv2);
	SIZE(io_cqring_offsets);
	OFF(io_cqring_offsets, head);
	OFF(io_cqring_offsets, tail);
	OFF(io_cqring_offsets, ring_mask);
	OFF(io_cqring_offsets, ring_entries);
	OFF(io_cqring_offsets, overflow);
	OFF(io_cqring_offsets, cqes);
	OFF(io_cqring_offsets, flags);
	OFF(io_cqring_offsets, resv1);
	OFF(io_cqring_offsets, resv2);
	SIZE(io_uring_params);
	OFF(io_uring_params, sq_entries);
	OFF(io_uring_params, cq_entries);
	OFF(io_uring_params, flags);
	OFF(io_uring_params, sq_thread_cpu);
	OFF(io_uring_params, sq_thread_idle);
	OFF(io_uring_params, features);
	OFF(io_uring_params, wq_fd);
	OFF(io_uring_params, resv);
	OFF(io_uring_params, sq_off);
	OFF(io_uring_params, cq_off);
	SIZE(io_uring_sq);
	OFF(io_uring_sq, khead);
	OFF(io_uring_sq, ktail);
	OFF(io_uring_sq, kring_mask);
	OFF(io_uring_sq, kring_entries);
	OFF(io_uring_sq, kflags);
	OFF(io_uring_sq, kdropped);
	OFF(io_uring_sq, array);
	OFF(io_uring_sq, sqes);
	OFF(io_uring_sq, sqe_head);
	OFF(io_uring_sq, sqe_tail);
	OFF(io_uring_sq, ring_sz);
	OFF(io_uring_sq, ring_ptr);
	OFF(io_uring_sq, ring_mask);
	OFF(io_uring_sq, ring_entries);
	OFF(io_uring_sq, pad);
	SIZE(io_uring_cq);
	OFF(io_uring_cq, khead);
	OFF(io_uring_cq, ktail);
	OFF(io_uring_cq, kring_mask);
	OFF(io_uring_cq, kring_entries);
	OFF(io_uring_cq, kflags);
	OFF(io_uring_cq, koverflow);
	OFF(io_uring_cq, cqes);
	OFF(io_uring_cq, ring_sz);
	OFF(io_uring_cq, ring_ptr);
	OFF(io_uring_cq, ring_mask);
	OFF(io_uring_cq, ring_entries);
	OFF(io_uring_cq, pad);
	SIZE(io_uring);
	OFF(io_uring, sq);
	OFF(io_uring, cq);
	OFF(io_uring, flags);
	OFF(io_uring, ring_fd);
	OFF(io_uring, features);
	OFF(io_uring, enter_ring_fd);
	OFF(io_uring, int_flags);
	OFF(io_uring, pad);
	OFF(io_uring, pad2);
	SIZE(io_uring_buf);
	OFF(io_uring_buf, addr);
	OFF(io_uring_buf, len);
	OFF(io_uring_buf, bid);
	OFF(io_uring_buf, resv);
	SIZE(io_uring_buf_ring);
	OFF(io_uring_buf_ring, resv1);
	OFF(io_uring_buf_ring, resv2);
	OFF(io_uring_buf_ring, resv3);
	OFF(io_uring_buf_ring, tail);
	OFF(io_uring_buf_ring, bufs);
	SIZE(io_uring_buf_reg);
	OFF(io_uring_buf_reg, ring_addr);
	OFF(io_uring_buf_reg, ring_entries);
	OFF(io_uring_buf_reg, bgid);
	OFF(io_uring_buf_reg, pad);
	OFF(io_uring_buf_reg, resv);
	SIZE(__kernel_timespec);
	OFF(__kernel_timespec, tv_sec);
	OFF(__kernel_timespec, tv_nsec);
	SIZE(io_uring_probe_op);
	OFF(io_uring_probe_op, op);
	OFF(io_uring_probe_op, resv);
	OFF(io_uring_probe_op, flags);
	OFF(io_uring_probe_op, resv2);
	SIZE(io_uring_probe);
	OFF(io_uring_probe, last_op);
	OFF(io_uring_probe, ops_len);
	OFF(io_uring_probe, resv);
	OFF(io_uring_probe, resv2);
	OFF(io_uring_probe, ops);
	SIZE(in_addr);
	OFF(in_addr, s_addr);
	SIZE(in6_addr);
	OFF(in6_addr, __in6_u);
	SIZE(sockaddr_in);
	OFF(sockaddr_in, sin_family);
	OFF(sockaddr_in, sin_port);
	OFF(sockaddr_in, sin_addr);
	OFF(sockaddr_in, sin_zero);
	SIZE(sockaddr_in6);
	OFF(sockaddr_in6, sin6_family);
	OFF(sockaddr_in6, sin6_port);
	OFF(sockaddr_in6, sin6_flowinfo);
	OFF(sockaddr_in6, sin6_addr);
	OFF(sockaddr_in6, sin6_scope_id);
	SIZE(pollfd);
	OFF(pollfd, fd);
	OFF(pollfd, events);
	OFF(pollfd, revents);
	CONST(LibUring, IORING_SETUP_SQPOLL);
	CONST(LibUring, IORING_SETUP_CQSIZE);
	CONST(LibUring, IORING_SETUP_SUBMIT_ALL);
	CONST(LibUring, IORING_SETUP_COOP_TASKRUN);
	CONST(LibUring, IORING_SETUP_SINGLE_ISSUER);
	CONST(LibUring, IORING_SETUP_DEFER_TASKRUN);
	CONST(LibUring, IORING_OP_ACCEPT);
	CONST(LibUring, IORING_OP_CONNECT);
	CONST(LibUring, IORING_OP_ASYNC_CANCEL);
	CONST(LibUring, IORING_OP_READ);
	CONST(LibUring, IORING_OP_SEND);
	CONST(LibUring, IORING_OP_RECV);
	CONST(LibUring, IOSQE_BUFFER_SELECT);
	CONST(LibUring, IOSQE_CQE_SKIP_SUCCESS);
	CONST(LibUring, IORING_RECV_MULTISHOT);
	CONST(LibUring, IORING_ACCEPT_MULTISHOT);
	CONST(LibUring, IORING_CQE_F_BUFFER);
	CONST(LibUring, IORING_CQE_F_MORE);
	CONST(LibUring, IORING_CQE_BUFFER_SHIFT);
	CONST(LibUring, IORING_FEAT_CQE_SKIP);
	CONST(LibUring, IO_URING_OP_SUPPORTED);
	CONST(Libc, AF_INET);
	CONST(Libc, AF_INET6);
	CONST(Libc, SOCK_STREAM);
	CONST(Libc, SOCK_NONBLOCK);
	CONST(Libc, SOCK_CLOEXEC);
	CONST(Libc, SOL_SOCKET);
	CONST(Libc, SO_REUSEADDR);
	CONST(Libc, SO_REUSEPORT);
	CONST(Libc, IPPROTO_TCP);
	CONST(Libc, TCP_NODELAY);
	CONST(Libc, SHUT_WR);
	CONST(Libc, EFD_CLOEXEC);
	CONST(Libc, MSG_NOSIGNAL);
	CONST(Libc, POLLIN);
	CONST(Libc, EPERM);
	CONST(Libc, ENOENT);
	CONST(Libc, EINTR);
	CONST(Libc, EAGAIN);
	CONST(Libc, ENOMEM);
	CONST(Libc, EBUSY);
	CONST(Libc, EINVAL);
	CONST(Libc, ENFILE);
	CONST(Libc, EMFILE);
	CONST(Libc, ENOSYS);
	CONST(Libc, ETIME);
	CONST(Libc, ENOBUFS);
	CONST(Libc, EALREADY);
	CONST(Libc, ECANCELED);
	CONST(Libc, ECONNREFUSED);
	CONST(Libc, ETIMEDOUT);
	CONST(Libc, EHOSTUNREACH);
	CONST(Libc, ENETUNREACH);
	return 0;
}
