"""Plays both APIs through the clients openapi-python-client generated from their
OpenAPI documents (scripts/api-contract.sh puts the packages `player_client` and
`admin_client` on PYTHONPATH), so a document that mis-describes an answer fails here.

Every call goes through a generated typed function; its answer must have the documented
status and parse into the generated model of that status, with no field the model does
not know and no nested object left unparsed.

player: a guest signs in, picks a region, plays a challenge of 5 answers, views a
knowledge card, reads a leaderboard page and its own rank.
admin: the bootstrap admin signs in, imports a CSV, moves an imported question through
review and publishes it, and reads its versions.
media: the admin uploads an image as a form and as a raw body (one file), lists the
library, the player API serves the file, an SVG is refused, the file is deleted.
"""

from __future__ import annotations

import argparse
import io
import struct
import sys
import uuid
import zlib
from typing import Any

import attrs

from admin_client import AuthenticatedClient as AdminAuthClient
from admin_client import Client as AdminClient
from admin_client.api.auth import admin_sign_in
from admin_client.api.categories import admin_list_categories
from admin_client.api.media import admin_delete_media, admin_list_media, admin_upload_media
from admin_client.api.questions import (
    admin_batch_publish_questions,
    admin_export_questions,
    admin_get_question,
    admin_get_question_stats,
    admin_get_question_version,
    admin_import_questions_csv,
    admin_list_question_versions,
    admin_list_questions,
    admin_revert_question,
    admin_set_question_status,
)
from admin_client.models import (
    AdminExportQuestionsFormat,
    EnvelopeAdminLogin,
    EnvelopeAdminQuestion,
    EnvelopeBatchResult,
    EnvelopeImportResult,
    EnvelopeMediaItem,
    EnvelopeQuestionStats,
    EnvelopeQuestionVersion,
    EnvelopeVecAdminQuestion,
    EnvelopeVecCategory,
    EnvelopeVecMediaItem,
    MediaUpload,
    EnvelopeVecQuestionVersionSummary,
    LoginRequest,
    MediaKind,
    QuestionExport,
    QuestionStatus,
    StatusRequest,
)
from admin_client.models import ErrorEnvelope as AdminErrorEnvelope
from admin_client.models import BatchRequest
from admin_client.types import File
from player_client import AuthenticatedClient, Client
from player_client.api.app import get_bootstrap, list_regions
from player_client.api.auth import get_my_profile, sign_in_as_guest
from player_client.api.challenges import (
    answer_question,
    get_next_challenge,
    view_knowledge_card,
)
from player_client.api.media import get_media_file
from player_client.api.leaderboards import get_my_leaderboard_entry, list_leaderboard
from player_client.api.progress import check_in, get_progress_summary
from player_client.api.tracks import list_tracks
from player_client.api.users import change_my_region
from player_client.models import (
    AnswerRequest,
    BoardScope,
    CardViewRequest,
    CheckInBody,
    EnvelopeAnswerResult,
    EnvelopeBootstrap,
    EnvelopeCardViewResult,
    EnvelopeCurrentUser,
    EnvelopeOptionChallenge,
    EnvelopeOptionLeaderboardEntry,
    EnvelopeProgressSummary,
    EnvelopeRegionChange,
    EnvelopeRegionList,
    EnvelopeSession,
    EnvelopeVecLeaderboardEntry,
    EnvelopeVecTrack,
    ErrorEnvelope,
    GuestRequest,
    RegionRequest,
)
from player_client.types import UNSET, Unset
from player_client.types import File as PlayerFile

CALLS = 0


class PlayFailed(Exception):
    pass


def fail(message: str) -> None:
    raise PlayFailed(message)


def unparsed(value: Any, annotation: str, at: str) -> list[str]:
    """Where a generated model kept a raw dict or an unknown field: a nested object that
    did not parse into its model (the generator's unions fall back to the raw value), or
    an answer field the document does not describe."""
    problems: list[str] = []
    if attrs.has(type(value)):
        extra = getattr(value, "additional_properties", None)
        # Free-form objects (`{type: object}` with no properties) are models with only
        # additional_properties; anything else must be described field by field.
        described = [f for f in attrs.fields(type(value)) if f.name != "additional_properties"]
        if extra and described:
            problems.append(f"{at}: fields outside {type(value).__name__}: {sorted(extra)}")
        for f in described:
            problems += unparsed(getattr(value, f.name), str(f.type), f"{at}.{f.name}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            problems += unparsed(item, annotation, f"{at}[{i}]")
    elif isinstance(value, dict) and "dict[" not in annotation and "Any" not in annotation:
        problems.append(f"{at}: a raw object where the model says {annotation}")
    return problems


def expect(response: Any, status: int, model: type, what: str) -> Any:
    """The parsed answer of `response`: its status must be `status` and its body an
    instance of the generated `model`, fully parsed."""
    global CALLS
    CALLS += 1
    if response.status_code != status:
        fail(
            f"{what}: HTTP {int(response.status_code)}, expected {status}: "
            f"{response.content[:500]!r}"
        )
    parsed = response.parsed
    if parsed is None:
        fail(f"{what}: the generated client parsed nothing from {response.content[:500]!r}")
    if not isinstance(parsed, model):
        fail(f"{what}: parsed into {type(parsed).__name__}, expected {model.__name__}")
    problems = unparsed(parsed, model.__name__, model.__name__)
    if problems:
        fail(f"{what}: " + "; ".join(problems))
    if status < 300:
        if parsed.success is not True:
            fail(f"{what}: success is {parsed.success!r}")
        if isinstance(parsed.error, ErrorEnvelope) or parsed.error not in (None, UNSET):
            fail(f"{what}: error is {parsed.error!r}")
    elif parsed.success is not False:
        fail(f"{what}: an error answer with success {parsed.success!r}")
    return parsed


def data_of(envelope: Any, what: str) -> Any:
    if isinstance(envelope.data, Unset) or envelope.data is None:
        fail(f"{what}: data is {envelope.data!r}")
    return envelope.data


def play_player(base_url: str) -> None:
    anonymous = Client(base_url=base_url, raise_on_unexpected_status=True)
    regions = data_of(
        expect(list_regions.sync_detailed(client=anonymous), 200, EnvelopeRegionList, "regions"),
        "regions",
    )
    enabled = [r for r in regions.regions if r.enabled]
    if not enabled:
        fail("regions: none enabled")
    region = enabled[0].code

    device = f"api-contract-{uuid.uuid4()}"
    session = data_of(
        expect(
            sign_in_as_guest.sync_detailed(client=anonymous, body=GuestRequest(device_id=device)),
            200,
            EnvelopeSession,
            "guest sign-in",
        ),
        "guest sign-in",
    )
    player = AuthenticatedClient(
        base_url=base_url, token=session.tokens.access_token, raise_on_unexpected_status=True
    )
    me = data_of(
        expect(get_my_profile.sync_detailed(client=player), 200, EnvelopeCurrentUser, "me"), "me"
    )
    print(f"player: signed in as guest {me.id}")

    changed = data_of(
        expect(
            change_my_region.sync_detailed(client=player, body=RegionRequest(region_code=region)),
            200,
            EnvelopeRegionChange,
            "region",
        ),
        "region",
    )
    if changed.region.code != region:
        fail(f"region: {changed.region.code} selected, {region} asked")
    expect(get_bootstrap.sync_detailed(client=player), 200, EnvelopeBootstrap, "bootstrap")

    tracks = data_of(
        expect(list_tracks.sync_detailed(client=player), 200, EnvelopeVecTrack, "tracks"), "tracks"
    )
    if not tracks:
        fail("tracks: none (is DEMO_CONTENT on?)")
    track = tracks[0].id
    challenge = data_of(
        expect(
            get_next_challenge.sync_detailed(client=player, track_id=track),
            200,
            EnvelopeOptionChallenge,
            "next challenge",
        ),
        "next challenge",
    )
    if len(challenge.questions) != 5:
        fail(f"next challenge: {len(challenge.questions)} questions, expected 5")
    print(f"player: challenge {challenge.challenge_id} on track {track}")

    results = []
    for n, item in enumerate(challenge.questions, start=1):
        question = item.question
        result = data_of(
            expect(
                answer_question.sync_detailed(
                    client=player,
                    body=AnswerRequest(
                        challenge_id=challenge.challenge_id,
                        question_id=question.id,
                        selected_option_id=question.options[0].id,
                        time_ms=1500 + n,
                        combo_count=0,
                        submit_request_id=f"{challenge.challenge_id}-{n}",
                    ),
                ),
                200,
                EnvelopeAnswerResult,
                f"answer {n}",
            ),
            f"answer {n}",
        )
        results.append(result)
    print("player: answered 5: " + ", ".join(r.answer_state for r in results))

    # The same challenge again: every question is answered, so the next one is new.
    again = expect(
        get_next_challenge.sync_detailed(client=player, track_id=track),
        200,
        EnvelopeOptionChallenge,
        "next challenge after the last answer",
    )
    if not isinstance(again.data, Unset) and again.data is not None:
        if again.data.challenge_id == challenge.challenge_id:
            fail("next challenge: the finished challenge was served again")

    card = results[0].knowledge_card.id
    view = data_of(
        expect(
            view_knowledge_card.sync_detailed(
                card, client=player, body=CardViewRequest(challenge_id=challenge.challenge_id)
            ),
            200,
            EnvelopeCardViewResult,
            "card view",
        ),
        "card view",
    )
    if view.card_id != card or not view.rewards:
        fail(f"card view: {view!r}")
    print(f"player: viewed card {card}: {len(view.rewards)} reward(s)")
    # The generated client sends `Content-Type: application/json` also without a body,
    # which the server refuses (no body means no Content-Type): `{}` it is.
    checked = data_of(
        expect(
            check_in.sync_detailed(client=player, body=CheckInBody()),
            200,
            EnvelopeProgressSummary,
            "check-in",
        ),
        "check-in",
    )
    summary = data_of(
        expect(
            get_progress_summary.sync_detailed(client=player),
            200,
            EnvelopeProgressSummary,
            "summary",
        ),
        "summary",
    )
    if summary.xp != checked.xp:
        fail(f"summary: xp {summary.xp}, the check-in said {checked.xp}")

    board = expect(
        list_leaderboard.sync_detailed(client=player, scope=BoardScope.REGION, page=1, limit=20),
        200,
        EnvelopeVecLeaderboardEntry,
        "leaderboard",
    )
    if isinstance(board.pagination, Unset) or board.pagination is None:
        fail("leaderboard: no pagination")
    if isinstance(board.data, Unset) or not any(e.user_id == me.id for e in board.data):
        fail(f"leaderboard: the player is not on its region's board: {board.data!r}")
    mine = expect(
        get_my_leaderboard_entry.sync_detailed(client=player, scope=BoardScope.REGION),
        200,
        EnvelopeOptionLeaderboardEntry,
        "own rank",
    )
    entry = data_of(mine, "own rank")
    print(f"player: leaderboard page of {len(board.data)}, own rank {entry.rank}")

    # An error answer parses into the error envelope.
    missing = expect(
        view_knowledge_card.sync_detailed(
            f"no-such-card-{uuid.uuid4()}", client=player, body=CardViewRequest()
        ),
        404,
        ErrorEnvelope,
        "unknown card",
    )
    if missing.error.code != "NOT_FOUND":
        fail(f"unknown card: {missing.error.code}")


CSV_HEADER = (
    "categoryId,contentType,difficulty,stemText,correctAnswer,distractor1,distractor2,"
    "distractor3,distractor4,distractor5,cardSummary,cardDeepDive,cardSourceRef"
)


def play_admin(base_url: str, username: str, password: str) -> AdminAuthClient:
    anonymous = AdminClient(base_url=base_url, raise_on_unexpected_status=True)
    login = data_of(
        expect(
            admin_sign_in.sync_detailed(
                client=anonymous, body=LoginRequest(username=username, password=password)
            ),
            200,
            EnvelopeAdminLogin,
            "admin sign-in",
        ),
        "admin sign-in",
    )
    admin = AdminAuthClient(
        base_url=base_url, token=login.access_token, raise_on_unexpected_status=True
    )
    print(f"admin: signed in as {login.admin.username}")

    categories = data_of(
        expect(
            admin_list_categories.sync_detailed(client=admin, page=1, limit=50),
            200,
            EnvelopeVecCategory,
            "categories",
        ),
        "categories",
    )
    if not categories:
        fail("categories: none (is DEMO_CONTENT on?)")
    category = categories[0].id

    tag = uuid.uuid4().hex[:8]
    csv = "\n".join(
        [
            CSV_HEADER,
            f"{category},text,1,Which planet is called the red planet? ({tag}),Mars,"
            "Venus,Jupiter,Mercury,,,Iron oxide dust makes Mars look red.,,",
            f"{category},text,2,Which gas do plants take in for photosynthesis? ({tag}),"
            "Carbon dioxide,Oxygen,Nitrogen,Helium,,,Plants fix carbon from CO2.,,",
        ]
    )
    imported = data_of(
        expect(
            admin_import_questions_csv.sync_detailed(
                client=admin,
                body=File(payload=io.BytesIO(csv.encode()), file_name="import.csv"),
            ),
            200,
            EnvelopeImportResult,
            "CSV import",
        ),
        "CSV import",
    )
    if imported.succeeded != 2 or len(imported.ids) != 2:
        fail(f"CSV import: {imported!r}")
    question = imported.ids[0]
    print(f"admin: imported {imported.succeeded} questions from CSV")

    drafts = data_of(
        expect(
            admin_list_questions.sync_detailed(
                client=admin, status=QuestionStatus.DRAFT, keyword=tag, page=1, limit=50
            ),
            200,
            EnvelopeVecAdminQuestion,
            "draft list",
        ),
        "draft list",
    )
    if sorted(q.id for q in drafts) != sorted(imported.ids):
        fail(f"draft list: {[q.id for q in drafts]}, imported {imported.ids}")

    reviewing = data_of(
        expect(
            admin_set_question_status.sync_detailed(
                question, client=admin, body=StatusRequest(status=QuestionStatus.REVIEWING)
            ),
            200,
            EnvelopeAdminQuestion,
            "to review",
        ),
        "to review",
    )
    if reviewing.status != "reviewing":
        fail(f"to review: status {reviewing.status}")
    published = data_of(
        expect(
            admin_batch_publish_questions.sync_detailed(
                client=admin, body=BatchRequest(ids=[question])
            ),
            200,
            EnvelopeBatchResult,
            "publish",
        ),
        "publish",
    )
    if published.succeeded != 1:
        fail(f"publish: {published!r}")
    final = data_of(
        expect(
            admin_get_question.sync_detailed(question, client=admin),
            200,
            EnvelopeAdminQuestion,
            "published question",
        ),
        "published question",
    )
    if final.status != "published":
        fail(f"published question: status {final.status}")
    print(f"admin: question {question} draft -> reviewing -> published")

    # status moves make no version: the imported content is version 1
    history = data_of(
        expect(
            admin_list_question_versions.sync_detailed(question, client=admin),
            200,
            EnvelopeVecQuestionVersionSummary,
            "versions",
        ),
        "versions",
    )
    if [v.version for v in history] != [1] or final.version != 1:
        fail(f"versions: {[v.version for v in history]}, question at {final.version}")
    first = data_of(
        expect(
            admin_get_question_version.sync_detailed(question, 1, client=admin),
            200,
            EnvelopeQuestionVersion,
            "version 1",
        ),
        "version 1",
    )
    if first.stem.text != final.stem.text or first.knowledge_card is None:
        fail(f"version 1: {first!r}")
    # a revert to the content held already writes nothing
    same = data_of(
        expect(
            admin_revert_question.sync_detailed(question, 1, client=admin),
            200,
            EnvelopeAdminQuestion,
            "revert",
        ),
        "revert",
    )
    if same.version != 1 or same.status != "published":
        fail(f"revert: version {same.version}, status {same.status}")
    print(f"admin: question {question} has version 1 only")

    # the JSON export is the import's body (no envelope): the two imported questions
    global CALLS
    CALLS += 1
    exported = admin_export_questions.sync_detailed(
        client=admin, format_=AdminExportQuestionsFormat.JSON, keyword=tag
    )
    if exported.status_code != 200 or not isinstance(exported.parsed, QuestionExport):
        fail(f"export: HTTP {int(exported.status_code)}: {exported.content[:500]!r}")
    problems = unparsed(exported.parsed, "QuestionExport", "QuestionExport")
    if problems:
        fail("export: " + "; ".join(problems))
    stems = sorted(q.stem.text for q in exported.parsed.questions)
    if len(stems) != 2 or not all(tag in stem for stem in stems):
        fail(f"export: {stems}")
    print(f"admin: exported {len(stems)} questions as JSON")

    # no answer yet: zero attempts, every option, thirty days
    stats = data_of(
        expect(
            admin_get_question_stats.sync_detailed(question, client=admin, version=1),
            200,
            EnvelopeQuestionStats,
            "statistics",
        ),
        "statistics",
    )
    if (
        stats.version != 1
        or stats.attempts != 0
        or len(stats.options) != 4
        or not stats.options[0].is_correct
        or len(stats.daily) != 30
    ):
        fail(f"statistics: {stats!r}")
    print(f"admin: question {question} has no attempts yet")

    missing = expect(
        admin_get_question.sync_detailed(str(uuid.uuid4()), client=admin),
        404,
        AdminErrorEnvelope,
        "unknown question",
    )
    if missing.error.code != "NOT_FOUND":
        fail(f"unknown question: {missing.error.code}")
    return admin


def png(width: int, height: int) -> bytes:
    """A real PNG of one colour (8-bit RGB), made here."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    rows = b"".join(b"\x00" + b"\xde\x29\x10" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def fetch_media(player: Client, name: str) -> Any:
    global CALLS
    CALLS += 1
    return get_media_file.sync_detailed(name, client=player)


def play_media(admin: AdminAuthClient, player_base: str) -> None:
    image = png(3, 2)
    as_form = data_of(
        expect(
            admin_upload_media.sync_detailed(
                client=admin,
                body=MediaUpload(
                    file=File(payload=io.BytesIO(image), file_name="flag.png", mime_type="image/png")
                ),
            ),
            200,
            EnvelopeMediaItem,
            "media upload (form)",
        ),
        "media upload (form)",
    )
    if (as_form.type_, as_form.mime, as_form.width, as_form.height) != ("image", "image/png", 3, 2):
        fail(f"media upload: {as_form!r}")
    if as_form.url != f"/media/{as_form.id}.png":
        fail(f"media url: {as_form.url}")
    as_body = data_of(
        expect(
            admin_upload_media.sync_detailed(
                client=admin,
                body=File(payload=io.BytesIO(image), mime_type="application/octet-stream"),
            ),
            200,
            EnvelopeMediaItem,
            "media upload (body)",
        ),
        "media upload (body)",
    )
    if as_body.id != as_form.id:
        fail(f"one file uploaded twice has two ids: {as_form.id}, {as_body.id}")
    print(f"admin: uploaded {as_form.id[:12]}… ({as_form.bytes_} bytes) twice, stored once")

    listed = data_of(
        expect(
            admin_list_media.sync_detailed(client=admin, type_=MediaKind.IMAGE, unused=True),
            200,
            EnvelopeVecMediaItem,
            "media list",
        ),
        "media list",
    )
    if [m.id for m in listed] != [as_form.id]:
        fail(f"media list: {[m.id for m in listed]}")

    player = Client(base_url=player_base, raise_on_unexpected_status=True)
    served = fetch_media(player, f"{as_form.id}.png")
    if int(served.status_code) != 200 or not isinstance(served.parsed, PlayerFile):
        fail(f"media file: HTTP {int(served.status_code)}")
    if served.parsed.payload.read() != image:
        fail("media file: other bytes than uploaded")
    print("player: the media file is served as uploaded")

    svg = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
    refused = expect(
        admin_upload_media.sync_detailed(
            client=admin, body=File(payload=io.BytesIO(svg), mime_type="image/svg+xml")
        ),
        400,
        AdminErrorEnvelope,
        "svg upload",
    )
    if refused.error.code != "VALIDATION_ERROR":
        fail(f"svg upload: {refused.error.code}")

    deleted = data_of(
        expect(
            admin_delete_media.sync_detailed(as_form.id, client=admin),
            200,
            EnvelopeMediaItem,
            "media delete",
        ),
        "media delete",
    )
    if deleted.id != as_form.id:
        fail(f"media delete: {deleted.id}")
    gone = fetch_media(player, f"{as_form.id}.png")
    if int(gone.status_code) != 404 or not isinstance(gone.parsed, ErrorEnvelope):
        fail(f"deleted media file: HTTP {int(gone.status_code)}")
    print("admin: an SVG refused; the file deleted, and no longer served")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", required=True, help="base URL of player-api")
    parser.add_argument("--admin", required=True, help="base URL of admin-console")
    parser.add_argument("--admin-username", required=True)
    parser.add_argument("--admin-password", required=True)
    args = parser.parse_args()
    try:
        play_player(args.player)
        admin = play_admin(args.admin, args.admin_username, args.admin_password)
        play_media(admin, args.player)
    except PlayFailed as e:
        print(f"api-contract: FAILED: {e}", file=sys.stderr)
        return 1
    print(f"api-contract: {CALLS} calls, every answer parsed into its generated model")
    return 0


if __name__ == "__main__":
    sys.exit(main())
