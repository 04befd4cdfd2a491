-- wrk script: the loadtest mix against pre-created sessions, round robin.
--
--   scripts/loadtest --url http://127.0.0.1:8080 --setup-only --wrk-plan /tmp/plan.tsv   # sessions + plan
--   wrk -t2 -c32 -d15s --latency -s scripts/wrk/mix.lua http://127.0.0.1:8080 -- /tmp/plan.tsv
--   scripts/loadtest --url http://127.0.0.1:8080 --cleanup-only                           # delete them
--
-- The plan is one request a line, "METHOD<TAB>PATH<TAB>BODY" (BODY may be empty), written by
-- `scripts/loadtest --wrk-plan FILE` from the same --mix, document and sessions as a loadtest run:
-- constant changes, root widths, hidden toggles and frame reads over random sessions.
--
-- Without a plan file the script generates root-width PATCHes itself, round robin over sessions
-- and widths:
--   wrk ... -s scripts/wrk/mix.lua http://127.0.0.1:8080 -- sessions=100 prefix=load- root=root
--
-- Every request is formatted once (wrk.format) in init(); request() only hands out the next one,
-- so wrk spends its time on HTTP. Each thread starts at its own offset in the plan. At the end
-- the script prints one JSON line (requests, rps, latency percentiles in ms, wrk's error counts;
-- "status" counts answers >= 400).

local nthreads = 0
function setup(thread)
  thread:set("tid", nthreads)
  nthreads = nthreads + 1
end

local reqs = {}
local i = 1
local PATCH_HEADERS = { ["Content-Type"] = "application/merge-patch+json" }

local function from_plan(path)
  local f = io.open(path, "r")
  if not f then error("cannot open plan file " .. path) end
  for line in f:lines() do
    local m, p, b = line:match("^(%u+)\t([^\t]+)\t(.*)$")
    if m then
      if b == "" then b = nil end
      reqs[#reqs + 1] = wrk.format(m, p, m == "PATCH" and PATCH_HEADERS or {}, b)
    end
  end
  f:close()
end

local function generated(opts)
  local n = tonumber(opts.sessions or "100")
  local prefix = opts.prefix or "load-"
  local root = opts.root or "root"
  for k = 0, 4999 do
    local w = 360 + (k * 37) % 665
    local body = string.format('{"views":{"%s":{"frame":{"width":%d}}}}', root, w)
    reqs[#reqs + 1] = wrk.format("PATCH", "/v1/sessions/" .. prefix .. (k % n), PATCH_HEADERS, body)
  end
end

function init(args)
  local opts, plan = {}, nil
  for _, a in ipairs(args) do
    local k, v = a:match("^([%w_]+)=(.*)$")
    if k then opts[k] = v else plan = a end
  end
  if plan then from_plan(plan) else generated(opts) end
  if #reqs == 0 then error("no requests") end
  -- spread the threads over the plan (tid is set by setup() before init runs)
  i = 1 + ((tonumber(tid) or 0) * 7919) % #reqs
end

function request()
  local r = reqs[i]
  i = i + 1
  if i > #reqs then i = 1 end
  return r
end

function done(summary, latency, requests)
  local e = summary.errors
  local secs = summary.duration / 1e6
  io.write(string.format(
    '{"tool":"wrk","requests":%d,"duration_s":%.3f,"rps":%.1f,"p50_ms":%.3f,"p90_ms":%.3f,' ..
    '"p99_ms":%.3f,"max_ms":%.3f,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}}\n',
    summary.requests, secs, summary.requests / secs,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, e.connect, e.read, e.write, e.status, e.timeout))
end
