-- SPDX-License-Identifier: Apache-2.0
-- wrk script of scripts/soak.sh: a rotating mix of GET /plaintext, GET /json, POST /echo 512 B
-- and POST /echo 16 KiB on every connection, and every answer's body checked against the bodies
-- the mix can produce (wrk does not say which request an answer belongs to, so the check is
-- "one of the expected bodies", which still catches a truncated, mixed-up or foreign body).
--   wrk -s scripts/lib/soak-mix.lua http://127.0.0.1:PORT
-- At the end it prints "soak-mix: <n> bodies checked, <m> unexpected" (soak.py reads it).

local function body_of(size)
   local alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
   return string.rep(alphabet, math.ceil(size / #alphabet)):sub(1, size)
end

local small, large = body_of(512), body_of(16 * 1024)
local expected = {
   ["Hello, World!"] = true,
   ['{"message":"Hello, World!"}'] = true,
   [small] = true,
   [large] = true,
}

local threads = {}

function setup(thread)
   table.insert(threads, thread)
end

local requests, i
checked, unexpected = 0, 0

function init(args)
   local echo = { ["Content-Type"] = "application/octet-stream" }
   requests = {
      wrk.format("GET", "/plaintext"),
      wrk.format("GET", "/json"),
      wrk.format("POST", "/echo", echo, small),
      wrk.format("POST", "/echo", echo, large),
   }
   i = 0
end

function request()
   i = i % #requests + 1
   return requests[i]
end

function response(status, headers, body)
   checked = checked + 1
   if status ~= 200 or not expected[body] then
      unexpected = unexpected + 1
   end
end

function done(summary, latency, requests)
   local c, u = 0, 0
   for _, t in ipairs(threads) do
      c = c + (t:get("checked") or 0)
      u = u + (t:get("unexpected") or 0)
   end
   io.write(string.format("soak-mix: %d bodies checked, %d unexpected\n", c, u))
end
