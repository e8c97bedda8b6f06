# SPDX-License-Identifier: Apache-2.0
"""section.md of doc003-spring-virtual-threads.sh: document 003's ab runs, quoted, beside what the part measured.

Usage: doc003_section.py <part_out_dir> <quick 0|1> <status> <wait_ms> <jvm flags>
"""
import csv
import math
import sys
from pathlib import Path

out, quick, status, wait_ms, flags = Path(sys.argv[1]), sys.argv[2] == "1", int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
SOURCE = "003_74564e6d61ac1344.txt"
rows = {}
if (out / "results.tsv").is_file():
    rows = {r["run"]: r for r in csv.DictReader(open(out / "results.tsv"), delimiter="\t")}
wait_s = wait_ms / 1000
# (n, c): published seconds with virtual threads, without; the document's expectation
PUBLISHED = {
    (10, 10): (None, None, "\"it should take approximately 2 seconds to complete\" (no time published)"),
    (20, 10): ("6.055", "6.199", "\"it should take approximately 4 seconds to complete\""),
    (60, 20): ("8.078", "14.179", "\"Ideally it should have completed in ~6 seconds\" (virtual threads)"),
}
SERVERS = [("SpringMvc-threads10", "Spring MVC, `server.tomcat.threads.max=10`", 10, "without"),
           ("SpringMvc-virtual", "Spring MVC, `server.tomcat.threads.max=10` and `spring.threads.virtual.enabled=true`",
            None, "with"),
           ("ThreadPoolServer-10", "Spindle ThreadPoolServer, 10 threads", 10, "without"),
           ("VirtualThreadServer", "Spindle VirtualThreadServer", None, "with")]


def get(label, n, c, key):
    r = rows.get(f"{label}_-n{n}-c{c}")
    return r[key] if r and r.get(key) else None


one_wave = rows.get("downstream-one-wave")
ab_extra = max(0.0, float(one_wave["seconds"]) - wait_s) if one_wave and one_wave.get("seconds") else None

p = print
p("## 003: Spring Boot MVC on Tomcat, 10 threads against virtual threads, a 2 s remote call per request\n")
if quick:
    p(f"**Smoke run (`--quick`): a {wait_ms} ms remote wait instead of 2 s; the figures check the mechanics only "
      "and are not comparable to the published ones.**\n")
if status:
    p("**This part failed before every run was measured; the cells marked \"not run\" were not reached "
      "(see `raw/`).**\n")
p(f"### What the document ran (`{SOURCE}`)\n")
p("A Spring Boot application on Tomcat with a \"Remote Service\" (`curl -i http://localhost:8085/remote/2`) and a "
  "\"Client Call to remote Service\" (`curl -i  http://localhost:8080/blocking/1`); it shows the code of neither, "
  "so how long the remote service waits is not stated: for `/blocking/2` it expects about 2 seconds a request "
  "(\"Since we are passing **2**, then it should take approximately 2 seconds to complete.\"). The benchmark setup is "
  "\"We are just going to have 10 tomcat threads to handle our requests\" (its application.yml sets "
  "`server.tomcat.threads.max` to 10), and virtual threads are its application.yml's "
  "`spring.threads.virtual.enabled` set to true. Three runs against `/blocking/2`:\n")
p("- `ab -n 10 -c 10  http://localhost:8080/blocking/2`: \"Since we are passing **2**, then it should take "
  "approximately 2 seconds to complete.\" No time is published for it.")
p("- `ab -n 20 -c 10  http://localhost:8080/blocking/2`: \"it should take approximately 4 seconds to complete\"; "
  "with virtual threads \"It took **6.055** seconds to complete\", without \"It took **6.199** seconds to complete\".")
p("- `ab -n 60 -c 20  http://localhost:8080/blocking/2`: with virtual threads \"It took **8.078** seconds to "
  "complete\" (\"Ideally it should have completed in ~6 seconds, but the benchmarking tool adds a little bit of delay "
  "to the overall time to complete.\"; median `50%   2022` ms), without \"It took **14.179** seconds to complete\" "
  "(median `50%   4037` ms).\n")
p("### What we ran\n")
p(f"The Spring MVC reference (`references/spring-mvc`, Spring Boot on Tomcat) with `-Dserver.tomcat.threads.max=10`, "
  "then with `-Dspring.threads.virtual.enabled=true` as well (the document's benchmark setup sets the 10 threads and does not say it lifted them for its virtual-thread runs); Spindle's "
  "ThreadPoolServer with 10 threads and VirtualThreadServer beside them. The nearest contract route to the "
  f"document's `/blocking/2` is `/remote-blocking/{wait_ms}`: a blocking call (Spring: `RestClient` on the JDK "
  "client; Spindle: the JDK `HttpClient.send`) to the remote service, here MultiLoopServer's "
  f"`/delay/{wait_ms}` (answers after {wait_ms} ms from a timer) on the same machine. Each server in a fresh JVM "
  f"(flags `{flags}`), warmed by 200 calls of 1 ms, then the three runs as published, not scaled:\n")
p("```")
for label, *_ in SERVERS:
    for (n, c) in PUBLISHED:
        r = rows.get(f"{label}_-n{n}-c{c}")
        if r:
            p(r["command"])
p("```\n")
if ab_extra is not None:
    p(f"What `ab` itself adds: one wave of 10 requests to the remote service's own timer route, with no thread limit "
      f"anywhere (`{one_wave['command']}`), took {float(one_wave['seconds']):.3f} s for a {wait_s:g} s wait, while its "
      f"longest request took {one_wave['p100_ms']} ms: the run lasts about one wait longer than its requests.\n")
p("### Published beside measured\n")
p("Seconds for the whole `ab` run (`Time taken for tests`), median ms beside; \"waves\" is the arithmetic: "
  f"⌈n ÷ min(c, threads)⌉ × {wait_s:g} s.\n")
p("| run | server | published s (median ms) | measured s | measured median ms | waves × wait | failed | non-2xx |")
p("|---|---|---:|---:|---:|---:|---:|---:|")
for (n, c), (pub_virtual, pub_threads, _) in PUBLISHED.items():
    for label, what, threads, kind in SERVERS:
        pub = pub_virtual if kind == "with" else pub_threads
        if pub and (n, c) == (60, 20):
            pub += " (2022)" if kind == "with" else " (4037)"
        secs = get(label, n, c, "seconds")
        waves = math.ceil(n / min(c, threads or c)) * wait_s
        p(f"| `-n {n} -c {c}` | {what} | {pub or '—'} | {f'{float(secs):.3f}' if secs else 'not run'} | "
          f"{get(label, n, c, 'p50_ms') or '—'} | {waves:g} | {get(label, n, c, 'failed') or '—'} | "
          f"{get(label, n, c, 'non2xx') or '—'} |")
p()
p("The published figures are the document's \"With Virtual Threads\" and \"Without Virtual Threads\" times, put "
  "beside both servers of each kind. Raw `ab` outputs: `raw/<server>_-n<N>-c<C>.ab`.\n")
p("### What carries over between machines\n")
p("The times are set by the 2 s wait and the thread arithmetic, not by the machine: 10 threads serve 20 clients in "
  "waves of 10, a virtual thread per request serves all of them at once, so 60 calls at 20 clients take three waves "
  "with virtual threads and six with 10 threads on any machine, plus what `ab` adds around them (measured above, "
  "and in the document 2.06-2.20 s beyond its own \"approximately 4 seconds\" (6.055 s and 6.199 s) and "
  "\"~6 seconds\" (8.078 s)). What does not carry over is only "
  "the milliseconds per call that the CPU adds, which a 2 s wait hides. The document's `ab` targets "
  "`localhost:8080` and its remote service is `localhost:8085`: client, server and remote service shared one "
  "machine there, as they do here.")
