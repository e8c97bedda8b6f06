-- SPDX-License-Identifier: Apache-2.0
-- wrk script: POSTs one multipart/form-data body (RFC 7578) to the URL's path: a small field
-- ("title") and one file part ("file", filename "bench.bin") of SIZE bytes (printable ASCII).
--   wrk ... -s scripts/lib/bench-multipart.lua http://127.0.0.1:PORT/multipart -- SIZE
-- The body is made once, in init(); only init() is defined, so wrk formats the request once and
-- reuses it (its fast path: no Lua call per request). scripts/lib/bench.py (multipart_body) makes
-- the same bytes for the route check, which compares the answer's SHA-256 with the file part's.
init = function(args)
   local size = tonumber(args[1]) or 1024
   local boundary = "----spindleBenchBoundary9Xq2LmVt"
   local alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
   local file = string.rep(alphabet, math.ceil(size / #alphabet)):sub(1, size)
   wrk.method = "POST"
   wrk.body = "--" .. boundary .. "\r\n"
      .. "Content-Disposition: form-data; name=\"title\"\r\n\r\n"
      .. "bench upload\r\n"
      .. "--" .. boundary .. "\r\n"
      .. "Content-Disposition: form-data; name=\"file\"; filename=\"bench.bin\"\r\n"
      .. "Content-Type: application/octet-stream\r\n\r\n"
      .. file
      .. "\r\n--" .. boundary .. "--\r\n"
   wrk.headers["Content-Type"] = "multipart/form-data; boundary=" .. boundary
end
