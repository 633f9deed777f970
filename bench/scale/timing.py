#!/usr/bin/env python3
"""Times the endpoints of the scale benchmark (bench/scale.sh) one request at a time.

    timing.py PLAYER_URL ADMIN_URL SQL_CMD... > results.tsv

Every sample is one request on a kept-alive connection, timed on the client (the
loopback round trip included); what a sample needs first (a new guest, a fresh challenge
to answer, an unfinished challenge removed) is done before its clock starts. SQL_CMD is
the command that runs one SQL statement on the service's database (psql … -c or
sqlite3 FILE), used to remove a heavy player's unfinished challenge between samples.
Prints `endpoint<TAB>samples<TAB>p50_ms<TAB>p99_ms` lines.

Environment: SAMPLES (default 200), HEAVY (players sp-1 … sp-HEAVY have many answers),
PLAYERS (seeded players), ADMIN_USERNAME, ADMIN_PASSWORD, ONLY (a space-separated subset
of endpoint names), LABEL_SUFFIX (appended to every endpoint name, e.g. "+redis").
"""

import http.client
import json
import math
import os
import subprocess
import sys
import time
import uuid
from urllib.parse import urlsplit

SAMPLES = int(os.environ.get("SAMPLES", "200"))
HEAVY = int(os.environ["HEAVY"])
PLAYERS = int(os.environ["PLAYERS"])
TRACK = "scale-track"


class Api:
    def __init__(self, base):
        u = urlsplit(base)
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)

    def call(self, method, path, token=None, body=None):
        headers = {}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        self.conn.request(method, path, body=data, headers=headers)
        resp = self.conn.getresponse()
        raw = resp.read()
        if resp.status >= 300:
            raise RuntimeError(f"{method} {path}: {resp.status} {raw[:300]!r}")
        return json.loads(raw) if raw else None

    def timed(self, method, path, token=None, body=None):
        start = time.perf_counter()
        answer = self.call(method, path, token, body)
        return (time.perf_counter() - start) * 1000.0, answer


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def main():
    player = Api(sys.argv[1])
    admin = Api(sys.argv[2])
    sql_cmd = sys.argv[3:]
    only = set(os.environ.get("ONLY", "").split())
    suffix = os.environ.get("LABEL_SUFFIX", "")

    def sql(statement):
        subprocess.run(sql_cmd + [statement], check=True, stdout=subprocess.DEVNULL)

    tokens = {}

    def token_of(n):
        if n not in tokens:
            session = player.call("POST", "/v1/auth/guest", body={"deviceId": f"scale-dev-{n}"})
            tokens[n] = session["data"]["tokens"]["accessToken"]
        return tokens[n]

    admin_token = admin.call(
        "POST",
        "/v1/admin/login",
        body={"username": os.environ["ADMIN_USERNAME"], "password": os.environ["ADMIN_PASSWORD"]},
    )["data"]["accessToken"]

    def with_query(path, query):
        return f"{path}{'&' if '?' in path else '?'}{query}"

    def last_page(path):
        total = admin.call("GET", with_query(path, "page=1&limit=20"), admin_token)["pagination"]["total"]
        return max(1, math.ceil(total / 20))

    # players the samples use: the heavy ones, and ordinary ones never used twice
    ordinary = iter(range(HEAVY + 1, PLAYERS + 1))

    def bootstrap(i):
        return player.timed("GET", "/v1/app/bootstrap", token_of(HEAVY + 1 + i % 50))[0]

    def tracks(i):
        return player.timed("GET", "/v1/tracks", token_of(HEAVY + 1 + i % 50))[0]

    def next_new(_):
        session = player.call("POST", "/v1/auth/guest", body={"deviceId": f"scale-new-{uuid.uuid4()}"})
        token = session["data"]["tokens"]["accessToken"]
        ms, answer = player.timed("GET", f"/v1/challenges/next?trackId={TRACK}", token)
        assert answer["data"] is not None, answer
        return ms

    def next_heavy(i):
        n = 1 + i % HEAVY
        sql(
            "DELETE FROM challenge_session_questions WHERE session_id IN "
            f"(SELECT id FROM challenge_sessions WHERE player_id = 'sp-{n}' AND status <> 'finished'); "
            f"DELETE FROM challenge_sessions WHERE player_id = 'sp-{n}' AND status <> 'finished'"
        )
        ms, answer = player.timed("GET", f"/v1/challenges/next?trackId={TRACK}", token_of(n))
        assert answer["data"] is not None, answer
        return ms

    def review_heavy(i):
        n = 1 + i % HEAVY
        sql(
            "DELETE FROM challenge_session_questions WHERE session_id IN "
            f"(SELECT id FROM challenge_sessions WHERE player_id = 'sp-{n}' AND kind = 'review' "
            "AND status <> 'finished'); "
            f"DELETE FROM challenge_sessions WHERE player_id = 'sp-{n}' AND kind = 'review' "
            "AND status <> 'finished'"
        )
        ms, answer = player.timed("GET", "/v1/challenges/next?mode=review", token_of(n))
        assert answer["data"] is not None, answer
        return ms

    def summary_heavy(i):
        ms, answer = player.timed("GET", "/v1/progress/summary", token_of(1 + i % HEAVY))
        assert answer["data"]["reviewsDue"] > 0, answer
        return ms

    def answer(_):
        token = token_of(next(ordinary))
        challenge = player.call("GET", f"/v1/challenges/next?trackId={TRACK}", token)["data"]
        first = challenge["questions"][0]["question"]
        ms, _ = player.timed(
            "POST",
            "/v1/challenges/answer",
            token,
            {
                "challengeId": challenge["challengeId"],
                "questionId": first["id"],
                "selectedOptionId": first["options"][0]["id"],
                "timeMs": 3000,
                "comboCount": 0,
                "submitRequestId": str(uuid.uuid4()),
            },
        )
        return ms

    def board(i):
        return player.timed("GET", "/v1/leaderboards?scope=region&page=1&limit=20", token_of(HEAVY + 1 + i % 50))[0]

    def board_me(i):
        return player.timed("GET", "/v1/leaderboards/me?scope=region", token_of(HEAVY + 1 + i % 50))[0]

    def board_at(query):
        return lambda i: player.timed("GET", f"/v1/leaderboards{query}", token_of(HEAVY + 1 + i % 50))[0]

    def admin_get(path):
        return lambda _: admin.timed("GET", path, admin_token)[0]

    def admin_last(path):
        page = last_page(path)
        return lambda _: admin.timed("GET", with_query(path, f"page={page}&limit=20"), admin_token)[0]

    endpoints = [
        ("bootstrap", lambda: bootstrap),
        ("tracks", lambda: tracks),
        ("next_new_player", lambda: next_new),
        ("next_10k_answers", lambda: next_heavy),
        ("answer", lambda: answer),
        ("review_10k_answers", lambda: review_heavy),
        ("summary_10k_answers", lambda: summary_heavy),
        ("board_page", lambda: board),
        ("board_own_rank", lambda: board_me),
        ("board_around", lambda: board_at("/me?scope=region&around=10")),
        ("board_league", lambda: board_at("?scope=league")),
        ("board_league_around", lambda: board_at("/me?scope=league&around=10")),
        ("board_previous", lambda: board_at("?scope=region&week=previous&page=2")),
        ("board_previous_around", lambda: board_at("/me?scope=region&week=previous&around=10")),
        ("admin_stats", lambda: admin_get("/v1/admin/stats")),
        ("admin_question_stats", lambda: admin_get("/v1/admin/questions/sq-77/stats")),
        ("admin_daily_stats", lambda: admin_get("/v1/admin/stats/daily")),
        ("admin_questions_flagged", lambda: admin_get("/v1/admin/questions?flagged=true&sortBy=severity")),
        ("admin_questions", lambda: admin_get("/v1/admin/questions?page=1&limit=20")),
        ("admin_questions_keyword", lambda: admin_get("/v1/admin/questions?keyword=question%2077%20about")),
        ("admin_questions_last_page", lambda: admin_last("/v1/admin/questions")),
        ("admin_users_search", lambda: admin_get("/v1/admin/users?search=13910000770")),
        ("admin_users_last_page", lambda: admin_last("/v1/admin/users")),
        ("admin_audit_last_page", lambda: admin_last("/v1/admin/audit-log")),
        ("admin_feedback_last_page", lambda: admin_last("/v1/admin/feedback")),
        ("admin_fair_play", lambda: admin_get("/v1/admin/fair-play?page=1&limit=20")),
        ("admin_history_last_page", lambda: admin_last("/v1/admin/leaderboards/history?board=region:110000")),
    ]
    for name, make in endpoints:
        if only and name not in only:
            continue
        sample = make()
        for i in range(min(10, SAMPLES)):  # warm-up: connections, caches, plans
            sample(i)
        times = [sample(10 + i) for i in range(SAMPLES)]
        print(f"{name}{suffix}\t{len(times)}\t{percentile(times, 50):.2f}\t{percentile(times, 99):.2f}", flush=True)
        print(f"{name}{suffix}: p50 {percentile(times, 50):.2f} ms, p99 {percentile(times, 99):.2f} ms", file=sys.stderr)


if __name__ == "__main__":
    main()
