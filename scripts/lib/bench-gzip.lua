-- SPDX-License-Identifier: Apache-2.0
-- wrk script: GETs the URL asking for a gzip-compressed answer (Accept-Encoding: gzip), as a browser
-- or an HTTP client library does.
--   wrk ... -s scripts/lib/bench-gzip.lua http://127.0.0.1:PORT/users-list
-- Only init() is defined, so wrk formats the request once and reuses it (its fast path: no Lua call
-- per request). wrk reads the compressed bytes and does not inflate them; the route check
-- (scripts/lib/bench.py) verifies the answer is gzip and inflates to the expected document.
init = function(args)
   wrk.headers["Accept-Encoding"] = "gzip"
end
