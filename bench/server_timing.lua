-- wrk script: collect each response's Server-Timing "app;dur=" and its status; print the
-- median and p90 of the app's own time when the run is done. One table per wrk thread.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  durations = {}
  bad = 0
end

function response(status, headers, body)
  if status ~= 200 then
    bad = bad + 1
  end
  local timing = headers["Server-Timing"] or headers["server-timing"]
  if timing then
    local dur = string.match(timing, "dur=([%d%.]+)")
    if dur then
      table.insert(durations, tonumber(dur))
    end
  end
end

function done(summary, latency, requests)
  local all, not_ok = {}, 0
  for _, thread in ipairs(threads) do
    local list = thread:get("durations")
    for i = 1, #list do
      table.insert(all, list[i])
    end
    not_ok = not_ok + thread:get("bad")
  end
  table.sort(all)
  local function pick(q)
    return all[math.max(1, math.ceil(#all * q))]
  end
  io.write(string.format("server_time_ms median=%.2f p90=%.2f samples=%d non_200=%d\n", pick(0.5), pick(0.9), #all, not_ok))
  io.write(string.format("latency_ms median=%.2f p90=%.2f p99=%.2f requests=%d\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, summary.requests))
end
