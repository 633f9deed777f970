-- axbench's requests for wrk (bench/run.sh): the reference's own script $BASE_LUA
-- (../shared/bench-baseline/wrk/read.lua or write.lua; unset for /json, whose request is
-- wrk's default GET), plus the same counting hooks as the service's runs, so both sides
-- pay the same wrk-side cost per response.
local base = os.getenv("BASE_LUA")
if base and base ~= "" then dofile(base) end
dofile((os.getenv("BENCH_WRK_DIR") or "bench/wrk") .. "/count.lua")
