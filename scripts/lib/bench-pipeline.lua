-- SPDX-License-Identifier: Apache-2.0
-- wrk script: sends DEPTH requests for PATH in one write and waits for all DEPTH responses
-- before the next batch (the technique of wrk's own scripts/pipeline.lua).
--   wrk ... -s scripts/lib/bench-pipeline.lua http://127.0.0.1:PORT -- [DEPTH] [PATH]
-- wrk counts every response, so Requests/sec is responses per second, not batches.
local batch

init = function(args)
   local depth = tonumber(args[1]) or 16
   local path = args[2] or "/plaintext"
   local r = {}
   for i = 1, depth do
      -- wrk.format adds Host (set by wrk.init before this runs) and wrk.headers.
      r[i] = wrk.format(nil, path)
   end
   batch = table.concat(r)
end

request = function()
   return batch
end
