-- wrk script for bench/serve_load.sh: KServe v2 binary requests spread at random over models,
-- every answer checked.
--   wrk ... -s bench/serve_load.lua URL -- DIR MODEL...
-- DIR holds, per MODEL: MODEL.req (the request body: JSON header, then the input's bytes),
-- MODEL.hl (the header's length) and MODEL.want (the whole answer expected, checked once
-- against `arenaplan run` by the script). A 200 whose body is not byte-equal to the answer for
-- the model it names counts as wrong; 503 (with Retry-After) as busy; anything else as other.
-- done() prints one line: "serve_load: ok=N busy=N wrong=N other=N ... p50_us=N p99_us=N".

local reqs, wants = {}, {}
local threads = {}
-- Globals of each thread's Lua state (done() reads them with thread:get).
ok, busy, wrong, other = 0, 0, 0, 0

local function slurp(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

function setup(thread)
  table.insert(threads, thread)
  thread:set("id", #threads)
end

function init(args)
  local dir = args[1]
  for i = 2, #args do
    local name = args[i]
    local body = slurp(dir .. "/" .. name .. ".req")
    local hl = slurp(dir .. "/" .. name .. ".hl"):gsub("%s+", "")
    reqs[#reqs + 1] = wrk.format("POST", "/v2/models/" .. name .. "/infer", {
      ["Inference-Header-Content-Length"] = hl,
      ["Content-Type"] = "application/octet-stream"
    }, body)
    wants[name] = slurp(dir .. "/" .. name .. ".want")
  end
  math.randomseed(12345 + 7919 * id)
end

function request()
  return reqs[math.random(#reqs)]
end

function response(status, headers, body)
  if status == 200 then
    local name = body:match('"model_name":"([^"]+)"')
    if name and wants[name] == body then
      ok = ok + 1
    else
      wrong = wrong + 1
    end
  elseif status == 503 and headers["Retry-After"] == "1" then
    busy = busy + 1
  else
    other = other + 1
  end
end

function done(summary, latency, requests)
  local o, b, w, x = 0, 0, 0, 0
  for _, t in ipairs(threads) do
    o = o + t:get("ok")
    b = b + t:get("busy")
    w = w + t:get("wrong")
    x = x + t:get("other")
  end
  local e = summary.errors
  io.write(string.format(
    "serve_load: ok=%d busy=%d wrong=%d other=%d requests=%d seconds=%.3f " ..
    "connect_errors=%d read_errors=%d write_errors=%d timeouts=%d " ..
    "p50_us=%d p90_us=%d p99_us=%d max_us=%d\n",
    o, b, w, x, summary.requests, summary.duration / 1e6, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
