-- The quiz service's requests for wrk (bench/run.sh), by $WRK_MODE:
--   get     GET $WRK_PATH with a Bearer token picked at random per request from $TOKENS
--           (one access token per line; TOKENS unset: no Authorization header)
--   guest   POST /v1/auth/guest with a never-repeating deviceId (a new guest each time)
--   answer  POST /v1/challenges/answer, one line of $ANSWERS (token TAB JSON body, made by
--           quiz_bench_seed) per request, each line once: thread t of $WRK_THREADS takes
--           lines t, t+T, t+2T, ... Should the lines run out, the thread starts over (those
--           requests are idempotent replays, not new answers) and counts them in
--           `exhausted`, which run.sh reports.
local mode = os.getenv("WRK_MODE") or "get"
local path = os.getenv("WRK_PATH") or "/health"
local nthreads = tonumber(os.getenv("WRK_THREADS") or "2")
local tokens, lines = {}, {}
local next_line, counter, prefix = 0, 0, ""

init = function(args)
  local me = tid or 1
  prefix = (os.getenv("RUN_ID") or tostring(os.time())) .. "-" .. me .. "-"
  math.randomseed(os.time() + me)
  exhausted = 0
  if mode == "get" and os.getenv("TOKENS") then
    for line in io.lines(os.getenv("TOKENS")) do tokens[#tokens + 1] = line end
  elseif mode == "answer" then
    local i = 0
    for line in io.lines(os.getenv("ANSWERS")) do
      if i % nthreads == me - 1 then
        local tab = string.find(line, "\t", 1, true)
        lines[#lines + 1] = wrk.format("POST", "/v1/challenges/answer", {
          ["Authorization"] = "Bearer " .. string.sub(line, 1, tab - 1),
          ["Content-Type"] = "application/json",
        }, string.sub(line, tab + 1))
      end
      i = i + 1
    end
  end
end

request = function()
  if mode == "answer" then
    next_line = next_line + 1
    if next_line > #lines then
      exhausted = exhausted + 1
      next_line = 1
    end
    return lines[next_line]
  elseif mode == "guest" then
    counter = counter + 1
    return wrk.format("POST", "/v1/auth/guest", { ["Content-Type"] = "application/json" },
      '{"deviceId":"bench-' .. prefix .. counter .. '"}')
  elseif #tokens > 0 then
    return wrk.format("GET", path, { ["Authorization"] = "Bearer " .. tokens[math.random(#tokens)] })
  else
    return wrk.format("GET", path)
  end
end

dofile((os.getenv("BENCH_WRK_DIR") or "bench/wrk") .. "/count.lua")
