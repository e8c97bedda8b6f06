#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Interop of Spindle's HTTPS client with other TLS servers on 127.0.0.1, in HTTP/1.1 and HTTP/2:
# nginx (Debian `nginx`) with TLS 1.2 only and with TLS 1.3 only, and h2o (Debian `h2o`, its default
# protocols), each in front of a Spindle backend (VirtualThreadServer with the benchmark app); and,
# reached directly over TLS with no proxy in front, the Netty reference (NettyServer, the JDK's TLS
# through Netty's SslHandler) and Spindle's own MultiLoopServer, VirtualThreadServer and IoUringServer
# (SKIPPED when io_uring is not available here), each serving the benchmark app's routes itself with
# -Dspindle.tls.keystore. Every one of them offers h2 by ALPN (nginx's servers `listen ... ssl http2`,
# or `http2 on;` from nginx 1.25.1). Besides, h2c by prior knowledge on two plain ports: a third nginx
# server (nginx-h2c) and the backend's own (backend-h2c, a Spindle server taking the HTTP/2 preface).
# A CI step.
#
#   scripts/client-interop.sh [output_dir]
#
#   output_dir  the servers' configurations and logs, the certificate, the client's output;
#               default a temporary directory
#
# Makes a self-signed certificate for 127.0.0.1 and localhost (openssl), the direct servers' key
# store (PKCS12) and a trust store holding only the certificate (keytool), and a 3 MiB file nginx and
# h2o serve themselves at /files/big. Then tools/client-interop (compiled here against the
# launchers' classpath) calls every TLS target in HTTP/1.1 (the client's HTTP/2 off) both ways a
# handler calls, blocking (`call()`) and from an asynchronous handler on an event loop of a
# MultiLoopServer it runs (`send()`): a file, checked byte for byte (from nginx and h2o their
# /files/big; from the direct servers, which have no static file route, the benchmark app's GET
# /download, its 1 MiB whose byte i is i % 251); 512 KiB POSTed to /echo (the backend's through nginx
# and h2o) and echoed back, checked; three GET /plaintext kept alive. Then, on the loop only (the
# client speaks HTTP/2 on event loops only), in h2 with `http2(true)` (h2c targets with
# `h2cPriorKnowledge(true)`): 32 GET /plaintext sent at once, all answered on one connection, and the
# same three cases, the three kept-alive GETs on that one connection. Every response's version must be
# the case's (HTTP/1.1, or HTTP/2: an HTTP/2 case that fell back to HTTP/1.1 fails). Each case at
# most 30 s; the whole run about 20 s once built.
#
# Installs what is missing: Debian nginx, h2o and openssl. Prints one line per case (ok/FAIL) and a
# PASS/FAIL line per target (10 cases over TLS, 4 over h2c; SKIPPED for IoUringServer without
# io_uring, with the kernel's reason). Maven (when a module needs building) takes MAVEN_ARGS, such as
# `MAVEN_ARGS="-o -Dmaven.repo.local=DIR"`.
# Exit status: 0 every case passed; 1 something failed; 2 bad arguments.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

usage() {
  echo "usage: $(basename "$0") [output_dir]   (--help for more)" >&2
  exit 2
}
case "${1:-}" in
  -h | --help) spindle_script_help "${BASH_SOURCE[0]}" ;;
  -*) echo "error: unknown option $1" >&2; usage ;;
esac
(( $# <= 1 )) || usage
out="${1:-$(mktemp -d "${TMPDIR:-/tmp}/spindle-client-interop-XXXXXX")}"
mkdir -p "$out"
out="$(cd "$out" && pwd -P)"

spindle_find_jdk
spindle_java_opts
spindle_ensure_packages nginx h2o openssl
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
H2O="$(command -v h2o || echo /usr/bin/h2o)"
[[ -x "$NGINX" && -x "$H2O" ]] || spindle_die "nginx ($NGINX) or h2o ($H2O) is not installed"

PASSWORD=spindle-interop
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
  -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" -keyout "$out/key.pem" -out "$out/cert.pem" >"$out/openssl.log" 2>&1 ||
  { cat "$out/openssl.log" >&2; spindle_die "openssl could not make the test certificate"; }
rm -f "$out/trust.p12"
"$JAVA_HOME/bin/keytool" -importcert -noprompt -alias interop -file "$out/cert.pem" -keystore "$out/trust.p12" \
  -storetype PKCS12 -storepass "$PASSWORD" >"$out/keytool.log" 2>&1 ||
  { cat "$out/keytool.log" >&2; spindle_die "keytool could not make the trust store"; }
openssl pkcs12 -export -inkey "$out/key.pem" -in "$out/cert.pem" -name interop -out "$out/keystore.p12" \
  -passout "pass:$PASSWORD" >>"$out/openssl.log" 2>&1 ||
  { cat "$out/openssl.log" >&2; spindle_die "openssl could not make the servers' key store"; }
mkdir -p "$out/www/files"
head -c $(( 3 << 20 )) /dev/urandom >"$out/www/files/big"
# what the benchmark app's (and the Netty reference's) GET /download answers: 1 MiB, byte i = i % 251
/usr/bin/python3 -c 'import sys; sys.stdout.buffer.write(bytes(i % 251 for i in range(1 << 20)))' >"$out/download.bin"

cp="$(spindle_classpath launchers)"
cp="$(spindle_snapshot_cp "$cp" "$out/classpath")"
netty_cp="$(spindle_classpath netty-server)"
netty_cp="$(spindle_snapshot_cp "$netty_cp" "$out/classpath-netty")"
mkdir -p "$out/tool"
mapfile -t sources < <(find "$SPINDLE_ROOT/tools/client-interop/src/main/java" -name '*.java')
"$JAVA_HOME/bin/javac" --release 25 -cp "$cp" -d "$out/tool" "${sources[@]}" || spindle_die "tools/client-interop did not compile"

backend_pid="" nginx_pid="" h2o_pid=""
# the servers called directly over TLS: main class -> classpath, and once started, its pid and port
DIRECT=(NettyServer MultiLoopServer VirtualThreadServer IoUringServer)
declare -A direct_cp=([NettyServer]="$netty_cp") direct_fqcn=([NettyServer]=dev.spindle.netty.NettyServer)
declare -A direct_pid=() direct_port=()
for name in "${DIRECT[@]:1}"; do
  direct_cp[$name]="$cp" direct_fqcn[$name]="dev.spindle.launch.$name"
done
cleanup() {
  local name
  for name in "${!direct_pid[@]}"; do spindle_stop_pid "${direct_pid[$name]}" 10; done
  spindle_stop_pid "$h2o_pid" 10
  spindle_stop_pid "$nginx_pid" 10
  spindle_stop_pid "$backend_pid" 10
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$JAVA_HOME/bin/java" "${SPINDLE_JVM_FLAGS[@]}" -cp "$cp" dev.spindle.launch.VirtualThreadServer 0 2 \
  >"$out/backend.out" 2>"$out/backend.err" &
backend_pid=$!
# the direct servers start meanwhile: their JVMs warm up side by side
mkdir -p "$out/direct"
for name in "${DIRECT[@]}"; do
  "$JAVA_HOME/bin/java" "${SPINDLE_JVM_FLAGS[@]}" "-Dspindle.tls.keystore=$out/keystore.p12" "-Dspindle.tls.password=$PASSWORD" \
    -cp "${direct_cp[$name]}" "${direct_fqcn[$name]}" 0 2 >"$out/direct/$name.out" 2>"$out/direct/$name.err" &
  direct_pid[$name]=$!
done
backend="$(spindle_await_ready "$backend_pid" "$out/backend.out" "$out/backend.err")"
declare -A skipped=()
for name in "${DIRECT[@]}"; do
  if ! direct_port[$name]="$(spindle_await_ready "${direct_pid[$name]}" "$out/direct/$name.out" "$out/direct/$name.err" 2>"$out/direct/$name.ready")"; then
    # a kernel without io_uring (or one that forbids it) is the machine's, not the client's, failure
    if [[ "$name" == IoUringServer ]] && grep -q 'io_uring is not available' "$out/direct/$name.err"; then
      skipped[$name]="$(grep -m 1 -o 'io_uring is not available.*' "$out/direct/$name.err")"
      continue
    fi
    cat "$out/direct/$name.ready" >&2
    spindle_die "$name did not start over TLS"
  fi
done

# four free ports, found by binding and letting go (nothing else binds on this machine's loopback meanwhile)
read -r tls12 tls13 h2c_port h2o_port < <(/usr/bin/python3 - <<'PY'
import socket
socks = [socket.socket() for _ in range(4)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks:
    s.close()
PY
)

# HTTP/2 on a listener: nginx 1.25.1 and later by the `http2 on;` directive (its `listen ... http2`
# is deprecated there), earlier ones (Debian 12's 1.22) by `listen ... http2` only
nginx_version="$("$NGINX" -v 2>&1 | sed -n 's|.*nginx/\([0-9.]*\).*|\1|p')"
if [[ "$(printf '%s\n' 1.25.1 "$nginx_version" | sort -V | head -n 1)" == 1.25.1 ]]; then
  nginx_listen_h2="" nginx_http2_on="http2 on;"
else
  nginx_listen_h2=" http2" nginx_http2_on=""
fi
# nginx_server PORT PROTOCOLS: TLS with those protocols (h2 or http/1.1 by ALPN); no PROTOCOLS: h2c
# by prior knowledge on a plain port
nginx_server() {
  local lines=("listen 127.0.0.1:$1${2:+ ssl}$nginx_listen_h2;") line
  [[ -z "$nginx_http2_on" ]] || lines+=("$nginx_http2_on")
  [[ -z "${2:-}" ]] || lines+=("ssl_protocols $2;" "ssl_certificate $out/cert.pem;" "ssl_certificate_key $out/key.pem;")
  echo "    server {"
  for line in "${lines[@]}"; do echo "        $line"; done
  cat <<EOF
        location /files/ { root $out/www; }
        location / {
            proxy_pass http://127.0.0.1:$backend;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_request_buffering off;
            proxy_buffering off;
        }
    }
EOF
}
mkdir -p "$out/nginx"
# the workers would otherwise switch to nobody, who cannot read the run's directory (mktemp's is 0700)
cat >"$out/nginx/nginx.conf" <<EOF
daemon off;
$( (( EUID == 0 )) && echo "user $(id -un);")
worker_processes 1;
pid $out/nginx/nginx.pid;
error_log $out/nginx/error.log warn;
events { worker_connections 256; }
http {
    access_log off;
    client_max_body_size 8m;
    client_body_temp_path $out/nginx/body;
    proxy_temp_path $out/nginx/proxy;
    fastcgi_temp_path $out/nginx/fastcgi;
    uwsgi_temp_path $out/nginx/uwsgi;
    scgi_temp_path $out/nginx/scgi;
    keepalive_requests 1000;
$(nginx_server "$tls12" TLSv1.2)
$(nginx_server "$tls13" TLSv1.3)
$(nginx_server "$h2c_port")
}
EOF
"$NGINX" -p "$out/nginx" -c "$out/nginx/nginx.conf" -e "$out/nginx/error.log" >"$out/nginx/stdout.log" 2>&1 &
nginx_pid=$!

mkdir -p "$out/h2o"
# h2o started by root would switch to nobody, who cannot write the run's directory: it stays who it is
cat >"$out/h2o/h2o.conf" <<EOF
user: $(id -un)
pid-file: $out/h2o/h2o.pid
error-log: $out/h2o/error.log
listen:
  host: 127.0.0.1
  port: $h2o_port
  ssl:
    certificate-file: $out/cert.pem
    key-file: $out/key.pem
hosts:
  "127.0.0.1:$h2o_port":
    paths:
      /files:
        file.dir: $out/www/files
      /:
        proxy.reverse.url: http://127.0.0.1:$backend/
EOF
"$H2O" -c "$out/h2o/h2o.conf" >"$out/h2o/stdout.log" 2>&1 &
h2o_pid=$!

# each TLS server is ready once its port accepts
await_port() {
  local name="$1" port="$2" pid="$3" i
  for (( i = 0; i < 100; i++ )); do
    kill -0 "$pid" 2>/dev/null || { cat "$out/$name/"*.log >&2 || true; spindle_die "$name exited before it listened on $port"; }
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    sleep 0.1
  done
  cat "$out/$name/"*.log >&2 || true
  spindle_die "$name did not listen on $port within 10 s"
}
await_port nginx "$tls12" "$nginx_pid"
await_port nginx "$tls13" "$nginx_pid"
await_port nginx "$h2c_port" "$nginx_pid"
await_port h2o "$h2o_port" "$h2o_pid"

# the cases per target: over TLS, file, echo and keep-alive in HTTP/1.1 both ways (6), then in h2 on
# the loop with the concurrent case (4); h2c, on the loop only (4)
declare -A expected=([nginx-tls1.2]=10 [nginx-tls1.3]=10 [h2o]=10 [nginx-h2c]=4)
targets=(nginx-tls1.2 nginx-tls1.3 h2o nginx-h2c)
direct_args=(--file "$out/download.bin" --served-at /download)
for name in "${DIRECT[@]}"; do
  [[ -z "${skipped[$name]:-}" ]] || continue
  targets+=("$name")
  expected[$name]=10
  # one of Spindle's by name, so its certificate is checked against a DNS name too
  host=127.0.0.1
  [[ "$name" != MultiLoopServer ]] || host=localhost
  direct_args+=("$name=https://$host:${direct_port[$name]}")
done
# the backend's plain port: a Spindle server (VirtualThreadServer) taking the HTTP/2 preface
targets+=(backend-h2c)
expected[backend-h2c]=4
direct_args+=("backend-h2c=http://127.0.0.1:$backend")

rc=0
timeout -k 5 240 "$JAVA_HOME/bin/java" "${SPINDLE_JVM_FLAGS[@]}" -cp "$out/tool:$cp" dev.spindle.tools.clientinterop.ClientInterop \
  --trust "$out/trust.p12" --password "$PASSWORD" --file "$out/www/files/big" --served-at /files/big \
  "nginx-tls1.2=https://127.0.0.1:$tls12" "nginx-tls1.3=https://localhost:$tls13" "h2o=https://127.0.0.1:$h2o_port" \
  "nginx-h2c=http://127.0.0.1:$h2c_port" "${direct_args[@]}" 2>"$out/client.log" || rc=$?
cat "$out/client.log" >&2
failed=0
for target in "${targets[@]}"; do
  cases="$(grep -c "^  ok $target " "$out/client.log" || true)"
  if grep -q "^  FAIL $target " "$out/client.log" || (( cases != expected[$target] )); then
    printf 'FAIL %-19s %s of %s cases passed\n' "$target" "$cases" "${expected[$target]}"
    failed=1
  else
    printf 'PASS %-19s %s cases\n' "$target" "${expected[$target]}"
  fi
done
for name in "${!skipped[@]}"; do
  printf 'SKIPPED %-16s %s\n' "$name" "${skipped[$name]}"
done
kill -0 "$backend_pid" 2>/dev/null || { echo "FAIL the backend exited during the run" >&2; failed=1; }
for name in "${!direct_pid[@]}"; do
  [[ -n "${skipped[$name]:-}" ]] || spindle_pid_alive "${direct_pid[$name]}" ||
    { echo "FAIL $name exited during the run" >&2; failed=1; }
done
(( rc == 0 && failed == 0 )) || { echo "client-interop: failed; logs in $out" >&2; exit 1; }
echo "client-interop: every case passed; logs in $out" >&2
