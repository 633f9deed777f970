/**
 * Plays both APIs through openapi-fetch clients typed by the types openapi-typescript
 * generates from the served OpenAPI documents (scripts/api-contract.sh generates them
 * and points "@api/*" at them), the TypeScript twin of scripts/api-client/play.py.
 *
 * Two checks hold the documents to what the binaries do. Before the run, `tsc` (strict)
 * checks this file against the generated types: every path, parameter, body and field
 * used here must be in the document as used, and where the document lists a field's
 * values (`enum`) they are the field's literal type, so a value this file sends or
 * compares that the document does not list fails the check, and so does a list of
 * values below (`Values<…>`) that misses one the document lists. During the run every
 * answer must have the expected status and envelope, and the fields used must be
 * present with the JSON type the document gives them (`shape`), enum values among the
 * listed ones (`member`).
 *
 * player: a guest signs in, picks a region, plays a challenge of 5 answers, views a
 * knowledge card, checks in, reads a leaderboard page and its own rank.
 * admin: the bootstrap admin signs in, imports a CSV, moves an imported question through
 * review and publishes it, reads its versions, exports and its statistics.
 * media: the admin uploads an image (a form), the player API serves it, it is deleted.
 *
 * Usage: tsx play.ts --player URL --admin URL --admin-username NAME --admin-password PASS
 */

import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { crc32, deflateSync } from "node:zlib";

import createClient from "openapi-fetch";

import type { components as AdminComponents, paths as AdminPaths } from "@api/admin";
import type { components as PlayerComponents, paths as PlayerPaths } from "@api/player";

type P = PlayerComponents["schemas"];
type A = AdminComponents["schemas"];

// ---- The values of enumerated fields ----------------------------------------------------

/** Every value of a string field: the keys of a `Values<T>` record. Where the document
 * lists the field's values, T is their union and the record must name each of them and
 * nothing else; where it does not (T is `string`), any keys are accepted, and the run
 * still checks that the server answers one of them. */
type Values<T extends string> = { readonly [K in T]: true };

const ANSWER_STATES: Values<P["AnswerResult"]["answerState"]> = { correct: true, wrong: true };
const REWARD_TYPES: Values<P["RewardItem"]["type"]> = { xp: true, item: true };
const BADGES: Values<P["LeaderboardEntry"]["badge"]> = { gold: true, silver: true, bronze: true, "": true };
const QUESTION_STATUSES: Values<A["AdminQuestion"]["status"]> = {
  draft: true,
  reviewing: true,
  published: true,
  archived: true,
};
const QUESTION_SOURCES: Values<A["AdminQuestion"]["source"]> = { system: true, ugc: true };
const CONTENT_TYPES: Values<A["ContentType"]> = { text: true, image: true, video: true, audio: true };
const ADMIN_ROLES: Values<A["AdminRole"]> = { super_admin: true, admin: true };
const MEDIA_TYPES: Values<A["MediaItem"]["type"]> = { image: true, audio: true, video: true };

// ---- Checks -----------------------------------------------------------------------------

class PlayFailed extends Error {}

let calls = 0;

function fail(message: string): never {
  throw new PlayFailed(message);
}

function need(condition: boolean, message: string): asserts condition {
  if (!condition) fail(message);
}

function show(value: unknown): string {
  return JSON.stringify(value)?.slice(0, 500) ?? String(value);
}

/** The JSON type(s) a generated field type stands for. */
type Kind<V> = V extends string
  ? "string"
  : V extends number
    ? "number"
    : V extends boolean
      ? "boolean"
      : V extends readonly unknown[]
        ? "array"
        : V extends null | undefined
          ? "null"
          : "object";

function kindOf(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** `value` has each field of `spec`, of the JSON type `spec` gives it. The spec is typed
 * by the generated type: a field the document does not have, or a JSON type other than
 * the document's, fails the type check; the server answering otherwise fails here. */
function shape<T extends object>(
  value: T | null | undefined,
  spec: { readonly [K in keyof T]?: Kind<T[K]> | readonly Kind<T[K]>[] },
  what: string,
): T {
  need(kindOf(value) === "object", `${what}: ${show(value)} is not an object`);
  for (const [field, kinds] of Object.entries(spec) as [string, string | string[]][]) {
    const got = kindOf((value as Record<string, unknown>)[field]);
    const allowed = typeof kinds === "string" ? [kinds] : kinds;
    need(allowed.includes(got), `${what}.${field}: ${got} where the document says ${allowed.join(" or ")}`);
  }
  return value as T;
}

/** `value` is one of the values of `values`. */
function member<T extends string>(values: Values<T>, value: T, what: string): T {
  need(Object.hasOwn(values, value), `${what}: ${show(value)} is not one of ${Object.keys(values).join(", ")}`);
  return value;
}

type Answer<D> = { data?: D; error?: unknown; response: Response };
type Envelope = { success: boolean; error?: unknown; pagination?: unknown; data?: unknown };

/** The envelope of a successful answer: status `status`, `success` true, no `error`. */
async function envelope<D extends Envelope>(what: string, call: Promise<Answer<D>>, status = 200): Promise<D> {
  calls += 1;
  const { data, error, response } = await call;
  need(response.status === status, `${what}: HTTP ${response.status}, expected ${status}: ${show(error ?? data)}`);
  need(data !== undefined, `${what}: no body`);
  shape<Envelope>(data, { success: "boolean" }, what);
  need(data.success, `${what}: success is ${show(data.success)}`);
  need(data.error === undefined || data.error === null, `${what}: error is ${show(data.error)}`);
  return data;
}

/** The `data` of a successful answer, present. */
async function data<D extends Envelope>(
  what: string,
  call: Promise<Answer<D>>,
  status = 200,
): Promise<NonNullable<D["data"]>> {
  const answer = await envelope(what, call, status);
  need(answer.data !== undefined && answer.data !== null, `${what}: data is ${show(answer.data)}`);
  return answer.data as NonNullable<D["data"]>;
}

type ErrorAnswer = { success: boolean; error: { code: string; message: string } };

/** The error envelope of a refused request: status `status`, `success` false, a code. */
async function refused<E extends ErrorAnswer>(
  what: string,
  call: Promise<{ data?: unknown; error?: E; response: Response }>,
  status: number,
): Promise<E["error"]> {
  calls += 1;
  const { data: body, error, response } = await call;
  need(response.status === status, `${what}: HTTP ${response.status}, expected ${status}: ${show(error ?? body)}`);
  need(error !== undefined, `${what}: no error body`);
  shape<ErrorAnswer>(error, { success: "boolean", error: "object" }, what);
  need(!error.success, `${what}: an error answer with success ${show(error.success)}`);
  return shape(error.error, { code: "string", message: "string" }, `${what}.error`);
}

// ---- The player ------------------------------------------------------------------------

async function playPlayer(baseUrl: string): Promise<void> {
  const anonymous = createClient<PlayerPaths>({ baseUrl });
  const regions = await data("regions", anonymous.GET("/v1/app/regions"));
  shape(regions, { regions: "array", countryCode: "string" }, "regions");
  const region = regions.regions.find((r) => shape(r, { code: "string", enabled: "boolean" }, "region").enabled);
  need(region !== undefined, "regions: none enabled");

  const session = await data(
    "guest sign-in",
    anonymous.POST("/v1/auth/guest", { body: { deviceId: `api-contract-ts-${randomUUID()}` } }),
  );
  shape(session.tokens, { accessToken: "string", refreshToken: "string" }, "session.tokens");
  shape(session.user, { id: "string", tier: "string" }, "session.user");
  const player = createClient<PlayerPaths>({
    baseUrl,
    headers: { Authorization: `Bearer ${session.tokens.accessToken}` },
  });
  const me = shape(await data("me", player.GET("/v1/auth/me")), { id: "string", xpTotal: "number" }, "me");
  need(me.id === session.user.id, `me: ${me.id}, signed in as ${session.user.id}`);
  console.log(`player: signed in as guest ${me.id}`);

  const changed = await data("region", player.PATCH("/v1/users/me/region", { body: { regionCode: region.code } }));
  shape(changed.region, { code: "string", nextChangeAllowedAt: "string" }, "region");
  need(changed.region.code === region.code, `region: ${changed.region.code} selected, ${region.code} asked`);
  const bootstrap = await data("bootstrap", player.GET("/v1/app/bootstrap"));
  shape(bootstrap, { user: "object", progress: "object", tracks: "array", wallet: "object" }, "bootstrap");
  need(bootstrap.user.region?.code === region.code, `bootstrap: region ${show(bootstrap.user.region)}`);

  const tracks = await data("tracks", player.GET("/v1/tracks"));
  const track = tracks[0];
  need(track !== undefined, "tracks: none (is DEMO_CONTENT on?)");
  shape(track, { id: "string", nodes: "array", progress: "number" }, "track");
  const challenge = await data(
    "next challenge",
    player.GET("/v1/challenges/next", { params: { query: { trackId: track.id } } }),
  );
  shape(challenge, { challengeId: "string", questions: "array", totalQuestions: "number" }, "challenge");
  need(challenge.questions.length === 5, `next challenge: ${challenge.questions.length} questions, expected 5`);
  console.log(`player: challenge ${challenge.challengeId} on track ${track.id}`);

  const results: P["AnswerResult"][] = [];
  for (const [n, item] of challenge.questions.entries()) {
    const question = shape(item.question, { id: "string", prompt: "string", options: "array" }, "question");
    const option = question.options[0];
    need(option !== undefined, `question ${question.id}: no options`);
    const result = await data(
      `answer ${n + 1}`,
      player.POST("/v1/challenges/answer", {
        body: {
          challengeId: challenge.challengeId,
          questionId: question.id,
          selectedOptionId: option.id,
          timeMs: 1500 + n,
          comboCount: 0,
          submitRequestId: `${challenge.challengeId}-${n + 1}`,
        },
      }),
    );
    shape(result, { answerState: "string", correctOptionId: "string", xpDelta: "number", rewards: "array" }, "answer");
    member(ANSWER_STATES, result.answerState, `answer ${n + 1}: answerState`);
    need(
      (result.answerState === "correct") === (result.correctOptionId === option.id),
      `answer ${n + 1}: ${result.answerState}, correct option ${result.correctOptionId}, chosen ${option.id}`,
    );
    for (const reward of result.rewards) member(REWARD_TYPES, reward.type, `answer ${n + 1}: reward type`);
    shape(result.knowledgeCard, { id: "string", fact: "string", title: "string" }, "knowledgeCard");
    shape(result.progress, { hearts: "number", xp: "number" }, "progress");
    results.push(result);
  }
  console.log(`player: answered 5: ${results.map((r) => r.answerState).join(", ")}`);

  // The same track again: every question is answered, so the next challenge is new.
  const again = await envelope(
    "next challenge after the last answer",
    player.GET("/v1/challenges/next", { params: { query: { trackId: track.id } } }),
  );
  need(again.data?.challengeId !== challenge.challengeId, "next challenge: the finished challenge was served again");

  const first = results[0];
  need(first !== undefined, "no answer");
  const card = first.knowledgeCard.id;
  const view = await data(
    "card view",
    player.POST("/v1/challenges/knowledge-cards/{cardId}/view", {
      params: { path: { cardId: card } },
      body: { challengeId: challenge.challengeId },
    }),
  );
  shape(view, { cardId: "string", rewards: "array", progress: "object" }, "card view");
  need(view.cardId === card && view.rewards.length > 0, `card view: ${show(view)}`);
  for (const reward of view.rewards) member(REWARD_TYPES, reward.type, "card view: reward type");
  console.log(`player: viewed card ${card}: ${view.rewards.length} reward(s)`);

  // No body, so no Content-Type: openapi-fetch sends none.
  const checked = await data("check-in", player.POST("/v1/progress/check-in"));
  const summary = await data("summary", player.GET("/v1/progress/summary"));
  shape(summary, { xp: "number", level: "number", hearts: "number", isSubscribed: "boolean" }, "summary");
  need(summary.xp === checked.xp, `summary: xp ${summary.xp}, the check-in said ${checked.xp}`);

  const board = await envelope(
    "leaderboard",
    player.GET("/v1/leaderboards", { params: { query: { scope: "region", page: 1, limit: 20 } } }),
  );
  const pagination = shape(board.pagination, { page: "number", limit: "number", total: "number" }, "pagination");
  need(board.data !== undefined, "leaderboard: no data");
  for (const entry of board.data) {
    shape(entry, { userId: "string", rank: "number", xp: "number", isMe: "boolean", badge: "string" }, "entry");
    member(BADGES, entry.badge, "leaderboard: badge");
  }
  need(
    board.data.some((e) => e.userId === me.id && e.isMe),
    `leaderboard: the player is not on its region's board: ${show(board.data)}`,
  );
  const mine = await data("own rank", player.GET("/v1/leaderboards/me", { params: { query: { scope: "region" } } }));
  shape(mine, { userId: "string", rank: "number", isMe: "boolean" }, "own rank");
  need(mine.userId === me.id && mine.isMe, `own rank: ${show(mine)}`);
  console.log(`player: leaderboard page of ${board.data.length} (${pagination.total} in all), own rank ${mine.rank}`);

  // An error answer is the error envelope of its documented status.
  const missing = await refused(
    "unknown card",
    player.POST("/v1/challenges/knowledge-cards/{cardId}/view", {
      params: { path: { cardId: `no-such-card-${randomUUID()}` } },
      body: {},
    }),
    404,
  );
  need(missing.code === "NOT_FOUND", `unknown card: ${missing.code}`);
}

// ---- The admin --------------------------------------------------------------------------

const CSV_HEADER =
  "categoryId,contentType,difficulty,stemText,correctAnswer,distractor1,distractor2," +
  "distractor3,distractor4,distractor5,cardSummary,cardDeepDive,cardSourceRef";

type AdminClient = ReturnType<typeof createClient<AdminPaths>>;

async function playAdmin(baseUrl: string, username: string, password: string): Promise<AdminClient> {
  const anonymous = createClient<AdminPaths>({ baseUrl });
  const login = await data("admin sign-in", anonymous.POST("/v1/admin/login", { body: { username, password } }));
  shape(login, { accessToken: "string", refreshToken: "string", admin: "object" }, "admin sign-in");
  shape(login.admin, { id: "string", username: "string", role: "string" }, "admin");
  member(ADMIN_ROLES, login.admin.role, "admin: role");
  need(login.admin.role === "super_admin", `admin: the bootstrap admin is ${login.admin.role}`);
  const admin = createClient<AdminPaths>({ baseUrl, headers: { Authorization: `Bearer ${login.accessToken}` } });
  console.log(`admin: signed in as ${login.admin.username} (${login.admin.role})`);

  const categories = await data(
    "categories",
    admin.GET("/v1/admin/categories", { params: { query: { page: 1, limit: 50 } } }),
  );
  const category = categories[0];
  need(category !== undefined, "categories: none (is DEMO_CONTENT on?)");
  shape(category, { id: "string", slug: "string", questionCount: "number" }, "category");

  const tag = randomUUID().slice(0, 8);
  const csv = [
    CSV_HEADER,
    `${category.id},text,1,Which planet is called the red planet? (${tag}),Mars,` +
      "Venus,Jupiter,Mercury,,,Iron oxide dust makes Mars look red.,,",
    `${category.id},text,2,Which gas do plants take in for photosynthesis? (${tag}),` +
      "Carbon dioxide,Oxygen,Nitrogen,Helium,,,Plants fix carbon from CO2.,,",
  ].join("\n");
  // The body is the CSV text itself, under its own Content-Type.
  const imported = await data(
    "CSV import",
    admin.POST("/v1/admin/questions/import-csv", {
      body: csv,
      headers: { "Content-Type": "text/csv" },
      bodySerializer: (text) => text,
    }),
  );
  shape(imported, { ids: "array", succeeded: "number", total: "number" }, "CSV import");
  need(imported.succeeded === 2 && imported.ids.length === 2, `CSV import: ${show(imported)}`);
  const question = imported.ids[0];
  need(question !== undefined, "CSV import: no id");
  console.log(`admin: imported ${imported.succeeded} questions from CSV`);

  const drafts = await data(
    "draft list",
    admin.GET("/v1/admin/questions", { params: { query: { status: "draft", keyword: tag, page: 1, limit: 50 } } }),
  );
  for (const q of drafts) {
    shape(q, { id: "string", status: "string", contentType: "string", version: "number", stem: "object" }, "question");
    member(QUESTION_STATUSES, q.status, "draft list: status");
    member(CONTENT_TYPES, q.contentType, "draft list: contentType");
    member(QUESTION_SOURCES, q.source, "draft list: source");
    need(q.status === "draft" && q.contentType === "text", `draft list: ${q.id} is ${q.status}, ${q.contentType}`);
  }
  const listed = drafts.map((q) => q.id).sort();
  need(show(listed) === show([...imported.ids].sort()), `draft list: ${show(listed)}, imported ${show(imported.ids)}`);

  const reviewing = await data(
    "to review",
    admin.PATCH("/v1/admin/questions/{id}/status", {
      params: { path: { id: question } },
      body: { status: "reviewing" },
    }),
  );
  need(reviewing.status === "reviewing", `to review: status ${reviewing.status}`);
  const published = await data(
    "publish",
    admin.POST("/v1/admin/questions/batch-publish", { body: { ids: [question] } }),
  );
  shape(published, { succeeded: "number", failed: "array", total: "number" }, "publish");
  need(published.succeeded === 1 && published.failed.length === 0, `publish: ${show(published)}`);
  const final = await data(
    "published question",
    admin.GET("/v1/admin/questions/{id}", { params: { path: { id: question } } }),
  );
  shape(final, { id: "string", status: "string", version: "number", stem: "object", distractors: "array" }, "question");
  member(QUESTION_STATUSES, final.status, "published question: status");
  need(final.status === "published", `published question: status ${final.status}`);
  console.log(`admin: question ${question} draft -> reviewing -> published`);

  // A status move makes no version: the imported content is version 1.
  const history = await data(
    "versions",
    admin.GET("/v1/admin/questions/{id}/versions", { params: { path: { id: question } } }),
  );
  for (const v of history) shape(v, { version: "number", editedBy: "string", changedFields: "array" }, "version");
  need(show(history.map((v) => v.version)) === "[1]" && final.version === 1, `versions: ${show(history)}`);
  const version1 = await data(
    "version 1",
    admin.GET("/v1/admin/questions/{id}/versions/{version}", { params: { path: { id: question, version: 1 } } }),
  );
  shape(version1, { version: "number", stem: "object", knowledgeCard: ["object", "null"] }, "version 1");
  need(
    version1.stem.text === final.stem.text && version1.knowledgeCard != null,
    `version 1: ${show(version1)}`,
  );
  // A revert to the content it holds already writes nothing.
  const same = await data(
    "revert",
    admin.POST("/v1/admin/questions/{id}/versions/{version}/revert", {
      params: { path: { id: question, version: 1 } },
    }),
  );
  need(same.version === 1 && same.status === "published", `revert: version ${same.version}, status ${same.status}`);
  console.log(`admin: question ${question} has version 1 only`);

  // The JSON export is the import's body, without an envelope.
  calls += 1;
  const exported = await admin.GET("/v1/admin/questions/export", {
    params: { query: { format: "json", keyword: tag } },
  });
  need(exported.response.status === 200 && exported.data !== undefined, `export: HTTP ${exported.response.status}`);
  const body = exported.data;
  // Three content types: the JSON one is the QuestionExport object.
  need(typeof body === "object" && "questions" in body, `export: ${show(body)}`);
  const stems = body.questions.map((q) => {
    shape(q, { stem: "object", contentType: "string", distractors: "array" }, "exported question");
    member(CONTENT_TYPES, q.contentType, "export: contentType");
    return q.stem.text;
  });
  need(stems.length === 2 && stems.every((s) => s.includes(tag)), `export: ${show(stems)}`);
  console.log(`admin: exported ${stems.length} questions as JSON`);

  // No answer yet: no attempts, every option, thirty days.
  const stats = await data(
    "statistics",
    admin.GET("/v1/admin/questions/{id}/stats", { params: { path: { id: question }, query: { version: 1 } } }),
  );
  shape(stats, { version: "number", attempts: "number", options: "array", daily: "array", flags: "array" }, "stats");
  need(
    stats.version === 1 &&
      stats.attempts === 0 &&
      stats.options.length === 4 &&
      stats.options[0]?.isCorrect === true &&
      stats.daily.length === 30,
    `statistics: ${show(stats)}`,
  );
  console.log(`admin: question ${question} has no attempts yet`);

  const unknown = await refused(
    "unknown question",
    admin.GET("/v1/admin/questions/{id}", { params: { path: { id: randomUUID() } } }),
    404,
  );
  need(unknown.code === "NOT_FOUND", `unknown question: ${unknown.code}`);
  return admin;
}

// ---- Media ------------------------------------------------------------------------------

/** A real PNG of one colour (8-bit RGB), made here. */
function png(width: number, height: number): Uint8Array<ArrayBuffer> {
  const chunk = (kind: string, body: Buffer): Buffer => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length);
    const typed = Buffer.concat([Buffer.from(kind, "latin1"), body]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(typed));
    return Buffer.concat([head, typed, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  // Each row: filter type 0, then the pixels.
  const rowBytes = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, Buffer.from([0xde, 0x29, 0x10]))]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => rowBytes));
  const bytes = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(pixels)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
  return new Uint8Array(bytes);
}

async function playMedia(admin: AdminClient, playerBase: string): Promise<void> {
  const image = png(3, 2);
  // The document types a binary field as a string: the form is made here.
  const form = new FormData();
  form.append("file", new Blob([image], { type: "image/png" }), "flag.png");
  const uploaded = await data(
    "media upload (form)",
    admin.POST("/v1/admin/media", { body: { file: "flag.png" }, bodySerializer: () => form }),
  );
  shape(
    uploaded,
    { id: "string", type: "string", mime: "string", width: ["number", "null"], height: ["number", "null"], url: "string" },
    "media",
  );
  member(MEDIA_TYPES, uploaded.type, "media: type");
  need(
    uploaded.type === "image" && uploaded.mime === "image/png" && uploaded.width === 3 && uploaded.height === 2,
    `media upload: ${show(uploaded)}`,
  );
  need(uploaded.url === `/media/${uploaded.id}.png`, `media url: ${uploaded.url}`);
  console.log(`admin: uploaded ${uploaded.id.slice(0, 12)}… (${uploaded.bytes} bytes)`);

  const listed = await data(
    "media list",
    admin.GET("/v1/admin/media", { params: { query: { type: "image", unused: true } } }),
  );
  need(show(listed.map((m) => m.id)) === show([uploaded.id]), `media list: ${show(listed.map((m) => m.id))}`);

  const player = createClient<PlayerPaths>({ baseUrl: playerBase });
  const file = `${uploaded.id}.png`;
  calls += 1;
  const served = await player.GET("/media/{file}", { params: { path: { file } }, parseAs: "arrayBuffer" });
  need(served.response.status === 200 && served.data !== undefined, `media file: HTTP ${served.response.status}`);
  need(Buffer.from(served.data).equals(Buffer.from(image)), "media file: other bytes than uploaded");
  console.log("player: the media file is served as uploaded");

  const deleted = await data("media delete", admin.DELETE("/v1/admin/media/{id}", { params: { path: { id: uploaded.id } } }));
  need(deleted.id === uploaded.id, `media delete: ${deleted.id}`);
  const gone = await refused("deleted media file", player.GET("/media/{file}", { params: { path: { file } } }), 404);
  need(gone.code === "NOT_FOUND", `deleted media file: ${gone.code}`);
  console.log("admin: the file deleted, and no longer served");
}

// ---- Main -------------------------------------------------------------------------------

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      player: { type: "string" },
      admin: { type: "string" },
      "admin-username": { type: "string" },
      "admin-password": { type: "string" },
    },
    strict: true,
  });
  const { player, admin, "admin-username": username, "admin-password": password } = values;
  if (!player || !admin || !username || !password) {
    console.error("usage: play.ts --player URL --admin URL --admin-username NAME --admin-password PASS");
    return 2;
  }
  try {
    await playPlayer(player);
    const client = await playAdmin(admin, username, password);
    await playMedia(client, player);
  } catch (e) {
    if (e instanceof PlayFailed) {
      console.error(`api-contract (TypeScript): FAILED: ${e.message}`);
      return 1;
    }
    throw e;
  }
  console.log(`api-contract (TypeScript): ${calls} calls, every answer as its generated type says`);
  return 0;
}

process.exitCode = await main();
