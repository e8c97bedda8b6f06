-- SPDX-License-Identifier: Apache-2.0
-- wrk script for the waiting scenarios (a route that answers after WAIT_MS): goodput from a fixed window.
--   wrk -tT -cC -dD ... -s scripts/lib/bench-window.lua URL -- WAIT_MS D C T [BINS_PREFIX]
-- Connections that all send at once stay in step (one wave of C answers per wait), so wrk's count over
-- its duration moves in whole waves: one wait is 5% of a 2 s cell, and the last wave, due just after
-- wrk stops, is lost. Here connection k of C holds its first request back by k/C of one wait (spread
-- evenly, at wrk's 1 ms timer step), and the goodput is the 2xx/3xx answers completed inside a fixed
-- window, from two waits after the start (every connection sending, its first answer in) to 100 ms
-- before wrk stops, over the window's length. done() prints, for bench.py:
--   window: <good> good, <other> other answers in <seconds> s
-- The held-back starts cost nothing later: delay() returns 0 once each connection has sent.
-- With a fifth argument, a path prefix, each thread also appends its answers per wall-clock second to
-- <prefix>-<thread>.tsv ("second good other", a second written once an answer of a later one arrives):
-- the benchmark's warm-up reads its 1 s windows from one run that keeps its connections, instead of a
-- wrk per window whose closed connections leave a server's queue full of requests nobody awaits.
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } spindle_window_timespec;
int clock_gettime(int clock, spindle_window_timespec *tp);
]]
local CLOCK_MONOTONIC = 1
local ts = ffi.new("spindle_window_timespec")

local CLOCK_REALTIME = 0

local function now()
   ffi.C.clock_gettime(CLOCK_MONOTONIC, ts)
   return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) / 1e9
end

local function wall_second()
   ffi.C.clock_gettime(CLOCK_REALTIME, ts)
   return tonumber(ts.tv_sec)
end

local threads = {}
local thread_count = 0

function setup(thread)
   thread:set("id", thread_count)
   thread_count = thread_count + 1
   table.insert(threads, thread)
end

local wait_ms, per_thread, thread_total, total, t0
local bin_file, bin_second, bin_good, bin_other
local started = 0
-- globals: done() reads them from each thread's state (thread:get)
good, other, window_from, window_to = 0, 0, 0, 0

function init(args)
   wait_ms = tonumber(args[1])
   local duration, connections = tonumber(args[2]), tonumber(args[3])
   thread_total = tonumber(args[4])
   assert(wait_ms and duration and connections and thread_total,
      "bench-window.lua needs: -- WAIT_MS DURATION_S CONNECTIONS THREADS")
   per_thread = math.floor(connections / thread_total)
   total = per_thread * thread_total
   window_from = 2 * wait_ms / 1000
   window_to = duration - 0.1
   assert(window_to > window_from, "bench-window.lua: the duration leaves no window after two waits")
   t0 = now()
   if args[5] then
      bin_file = assert(io.open(args[5] .. "-" .. id .. ".tsv", "a"))
   end
end

function delay()
   if started < per_thread then
      -- interleaved over the threads, so the C offsets are spread evenly over one wait
      local k = started * thread_total + id
      started = started + 1
      return math.floor(k * wait_ms / total)
   end
   return 0
end

function response(status, headers, body)
   local t = now() - t0
   if t >= window_from and t < window_to then
      if status < 400 then good = good + 1 else other = other + 1 end
   end
   if bin_file then
      local second = wall_second()
      if second ~= bin_second then
         if bin_second then
            bin_file:write(string.format("%d\t%d\t%d\n", bin_second, bin_good, bin_other))
            bin_file:flush()
         end
         bin_second, bin_good, bin_other = second, 0, 0
      end
      if status < 400 then bin_good = bin_good + 1 else bin_other = bin_other + 1 end
   end
end

function done(summary, latency, requests)
   local g, o = 0, 0
   for _, thread in ipairs(threads) do
      g = g + thread:get("good")
      o = o + thread:get("other")
   end
   local t = threads[1]
   io.write(string.format("window: %d good, %d other answers in %.3f s\n", g, o, t:get("window_to") - t:get("window_from")))
end
