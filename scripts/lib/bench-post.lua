-- SPDX-License-Identifier: Apache-2.0
-- wrk script: POSTs a fixed body of SIZE bytes (printable ASCII) to the URL's path.
--   wrk ... -s scripts/lib/bench-post.lua http://127.0.0.1:PORT/echo -- SIZE
-- Only init() is defined, so wrk formats the request once and reuses it (its fast path:
-- no Lua call per request, the client costs the same for every server).
init = function(args)
   local size = tonumber(args[1]) or 72
   local alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
   local body = string.rep(alphabet, math.ceil(size / #alphabet)):sub(1, size)
   wrk.method = "POST"
   wrk.body = body
   wrk.headers["Content-Type"] = "application/octet-stream"
end
