-- Counting hooks shared by every wrk run of bench/run.sh (the service's and axbench's):
-- each response with status >= 300 is counted per thread (the first one is kept), and
-- done() prints "non2xx_hook: N", "answers_exhausted: N" and "first_non2xx: ...".
-- dofile() it last: it wraps the setup() and init() of the script loaded before it.
local threads = {}
local base_setup = setup
setup = function(thread)
  threads[#threads + 1] = thread
  if base_setup then base_setup(thread) else thread:set("tid", #threads) end
end

local base_init = init
init = function(args)
  non2xx = 0
  exhausted = exhausted or 0
  if base_init then base_init(args) end
end

response = function(status, headers, body)
  if status >= 300 then
    non2xx = non2xx + 1
    if first_bad == nil then first_bad = status .. " " .. string.sub(body or "", 1, 300) end
  end
end

done = function(summary, latency, requests)
  local bad, gone, first = 0, 0, nil
  for _, t in ipairs(threads) do
    bad = bad + (t:get("non2xx") or 0)
    gone = gone + (t:get("exhausted") or 0)
    first = first or t:get("first_bad")
  end
  io.write(string.format("non2xx_hook: %d\n", bad))
  io.write(string.format("answers_exhausted: %d\n", gone))
  if first then io.write("first_non2xx: " .. string.gsub(first, "%s+", " ") .. "\n") end
end
