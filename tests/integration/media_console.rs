//! Media beyond the API's library routes: the demo's flags track, the console's question
//! editor and media screen, and the CSV's media columns.

use serde_json::Value;
use sha2::{Digest, Sha256};
use shared::services::demo::flags::{self, Flag, Pattern};
use tests::{Service, TestApp, both_engines_demo};

both_engines_demo!(
    the_demo_has_an_image_track_of_flags,
    the_editor_uploads_previews_and_removes_media,
    the_media_screen_lists_uploads_and_deletes,
    csv_import_and_export_carry_media,
    a_bank_moves_with_its_media_as_a_zip,
);

/// A real PNG no demo file shares (`tag` varies its colour).
fn picture(tag: u8) -> Vec<u8> {
    Flag {
        country: "test",
        width: 40,
        height: 30,
        pattern: Pattern::Disc {
            field: [tag, 200, 200],
            disc: [10, 20, tag],
            diameter: (1, 2),
        },
        alt: "",
        distractors: ["a", "b", "c"],
        difficulty: 1,
        card_title: "",
        card_summary: "",
        card_deep_dive: "",
    }
    .png()
    .unwrap()
}

const SVG: &[u8] = b"<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>";

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

async fn media_rows(app: &TestApp) -> i64 {
    app.scalar("SELECT count(*) FROM media", &[]).await
}

async fn question(app: &TestApp, token: &str, id: &str) -> Value {
    app.admin_get(&format!("/v1/admin/questions/{id}"), Some(token))
        .await
        .ok()
        .clone()
}

async fn the_demo_has_an_image_track_of_flags(app: TestApp) {
    let (_, player, _) = app.guest("flag-player").await;
    let track = app
        .get(&format!("/v1/tracks/{}", flags::CATEGORY_ID), Some(&player))
        .await;
    assert_eq!(track.ok()["name"], flags::CATEGORY_NAME, "{:?}", track.body);
    let challenge = app
        .get(
            &format!("/v1/challenges/next?trackId={}", flags::CATEGORY_ID),
            Some(&player),
        )
        .await;
    let questions = challenge.ok()["questions"].as_array().unwrap().clone();
    assert_eq!(questions.len(), 5);
    for q in &questions {
        let q = &q["question"];
        assert_eq!(q["prompt"], flags::STEM, "{q}");
        let media = &q["media"];
        assert_eq!(media["type"], "image", "{q}");
        let alt = media["alt"].as_str().unwrap();
        let url = media["url"].as_str().unwrap();
        let flag = flags::FLAGS
            .into_iter()
            .find(|f| f.alt == alt)
            .unwrap_or_else(|| panic!("no flag says {alt}"));
        assert_eq!(media["width"], flag.width);
        assert_eq!(media["height"], flag.height);
        // the picture served is the one drawn, under its content's hash
        let resp = app
            .client
            .get(app.url(Service::Player, url))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200, "{url}");
        assert_eq!(resp.headers()["content-type"], "image/png");
        let bytes = resp.bytes().await.unwrap();
        assert_eq!(bytes.as_ref(), flag.png().unwrap().as_slice());
        assert_eq!(url, format!("/media/{}.png", sha256_hex(&bytes)));
    }
    // the library holds the twelve, each used by its question
    let (token, _, _) = app.admin_login().await;
    let library = app
        .admin_get("/v1/admin/media?type=image&limit=50", Some(&token))
        .await;
    let items = library.ok().as_array().unwrap().clone();
    assert_eq!(items.len(), 12, "{items:?}");
    assert!(items.iter().all(|m| m["usedBy"] == 1), "{items:?}");
    // each question is published with its media (a version that holds it)
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM questions WHERE category_id = $1 AND status = 'published'
               AND content_type = 'image' AND media_id IS NOT NULL AND media_alt IS NOT NULL",
            &[flags::CATEGORY_ID],
        )
        .await,
        12
    );
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM question_versions v JOIN questions q ON q.id = v.question_id
             WHERE q.category_id = $1 AND v.media_id IS NOT NULL",
            &[flags::CATEGORY_ID],
        )
        .await,
        12
    );
}

async fn the_editor_uploads_previews_and_removes_media(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let mut browser = app.console_signed_in().await;
    let form = browser.get("/console/questions/new").await;
    form.assert_status(200)
        .assert_contains("enctype=\"multipart/form-data\"")
        .assert_contains("name=\"mediaFile\"")
        .assert_contains("name=\"mediaAlt\"");
    // the file field comes after every other field of the form
    let file_at = form.body.find("name=\"mediaFile\"").unwrap();
    let form_end = form.body[file_at..].find("</form>").unwrap() + file_at;
    assert!(!form.body[file_at + 1..form_end].contains(" name=\""));

    let fields = |alt: &'static str| {
        vec![
            ("stem", "Which shape is this?"),
            ("contentType", "text"),
            ("correctAnswer", "A disc"),
            ("distractors", "A square\nA star"),
            ("categoryId", "world-geography"),
            ("difficulty", "2"),
            ("mediaAlt", alt),
        ]
    };
    // a file of another type: the form again with the reason and the typed text, nothing stored
    let before = media_rows(&app).await;
    let refused = browser
        .post_multipart(
            "/console/questions/new",
            &fields("A disc"),
            Some(("mediaFile", "shape.png", SVG.to_vec())),
        )
        .await;
    refused
        .assert_status(400)
        .assert_contains("not a supported media type")
        .assert_contains("Which shape is this?");
    assert_eq!(media_rows(&app).await, before);
    // without the form's token the file is not even read
    let stranger = browser
        .client
        .post(format!("{}/console/questions/new", browser.base))
        .multipart(reqwest::multipart::Form::new().part(
            "mediaFile",
            reqwest::multipart::Part::bytes(picture(1)).file_name("p.png"),
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(stranger.status(), 403);
    assert_eq!(media_rows(&app).await, before);

    // an image without its alternative text: refused, but the upload is kept on the form
    let png = picture(2);
    let id = sha256_hex(&png);
    let no_alt = browser
        .post_multipart(
            "/console/questions/new",
            &fields(""),
            Some(("mediaFile", "shape.png", png.clone())),
        )
        .await;
    no_alt
        .assert_status(400)
        .assert_contains("media.alt is required")
        .assert_contains(&format!("name=\"mediaId\" value=\"{id}\""))
        .assert_contains(&format!("src=\"/media/{id}.png\""));
    // sent again with the text, URL-encoded (no file this time): created as an image question
    let mut again = fields("A blue disc on a pale field");
    again.push(("mediaId", &id));
    again[1] = ("contentType", "image");
    let created = browser.post("/console/questions/new", &again).await;
    assert_eq!(created.status, 303, "{}", created.body);
    let page = browser.follow(&created).await;
    let question_id = created
        .location()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_string();
    page.assert_contains(&format!("src=\"/media/{id}.png\""))
        .assert_contains("alt=\"A blue disc on a pale field\"")
        .assert_contains("id=\"media-remove\"");
    let q = question(&app, &token, &question_id).await;
    assert_eq!(q["contentType"], "image");
    assert_eq!(q["media"]["id"], id);
    assert_eq!(q["version"], 1);

    // the preview's address is the console's own, served by the admin binary
    let served = browser
        .client
        .get(format!("{}/media/{id}.png", browser.base))
        .send()
        .await
        .unwrap();
    assert_eq!(served.status(), 200);
    assert_eq!(served.bytes().await.unwrap().as_ref(), png.as_slice());

    // saving unchanged keeps the version; a new file in the same form replaces the media
    let mut edit: Vec<(&str, &str)> = again.clone();
    edit[1] = ("contentType", "image");
    let path = format!("/console/questions/{question_id}");
    // as a browser sends a file field left empty: a part named, without a file name or bytes
    let same = browser
        .post_multipart(&path, &edit, Some(("mediaFile", "", Vec::new())))
        .await;
    assert_eq!(same.status, 303, "{}", same.body);
    assert_eq!(question(&app, &token, &question_id).await["version"], 1);
    let other = picture(3);
    let replaced = browser
        .post_multipart(&path, &edit, Some(("mediaFile", "b.png", other.clone())))
        .await;
    assert_eq!(replaced.status, 303, "{}", replaced.body);
    let q = question(&app, &token, &question_id).await;
    assert_eq!(q["media"]["id"], sha256_hex(&other));
    assert_eq!(q["version"], 2);

    // removing it (a draft may be without)
    let mut remove = edit.clone();
    remove.push(("mediaRemove", "true"));
    let removed = browser.post_multipart(&path, &remove, None).await;
    assert_eq!(removed.status, 303, "{}", removed.body);
    let q = question(&app, &token, &question_id).await;
    assert!(q["media"].is_null(), "{q}");
    browser
        .get(&path)
        .await
        .assert_contains("id=\"media-none\"");

    // the same editor in Chinese
    let mut zh = tests::console::Console::new_in(&app.admin_url, "zh-CN");
    zh.sign_in(&app.admin_username, &app.admin_password).await;
    zh.get(&path)
        .await
        .assert_contains("替代文本")
        .assert_contains("上传文件");
}

async fn the_media_screen_lists_uploads_and_deletes(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let mut browser = app.console_signed_in().await;
    let screen = browser.get("/console/media").await;
    screen
        .assert_status(200)
        .assert_contains("id=\"media-link\" aria-current=\"page\"")
        .assert_contains("1 question(s)")
        .assert_contains("class=\"thumb\"");
    // files in use have no delete button
    assert!(!screen.contains("id=\"delete-media-"));

    // an upload through the screen's form
    let png = picture(4);
    let id = sha256_hex(&png);
    let stored = browser
        .post_multipart("/console/media", &[], Some(("file", "new.png", png)))
        .await;
    assert_eq!(stored.status, 303, "{}", stored.body);
    browser
        .follow(&stored)
        .await
        .assert_contains("stored in the library");
    let unused = browser.get("/console/media?unused=true&type=image").await;
    unused
        .assert_contains(&format!("id=\"media-{id}\""))
        .assert_contains(&format!("id=\"delete-media-{id}\""))
        .assert_contains("0 question(s)");
    // a refused file: the screen again with the reason
    browser
        .post_multipart("/console/media", &[], Some(("file", "x.png", SVG.to_vec())))
        .await
        .assert_status(400)
        .assert_contains("not a supported media type");
    // two files in one form: refused, the first one is all that was stored
    let two = reqwest::multipart::Form::new()
        .text("_csrf", browser.csrf.clone())
        .part(
            "file",
            reqwest::multipart::Part::bytes(picture(6)).file_name("a.png"),
        )
        .part(
            "file",
            reqwest::multipart::Part::bytes(picture(7)).file_name("b.png"),
        );
    let resp = browser
        .client
        .post(format!("{}/console/media", browser.base))
        .multipart(two)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM media WHERE id = $1",
            &[&sha256_hex(&picture(7))]
        )
        .await,
        0
    );
    // no file at all
    browser
        .post_multipart("/console/media", &[], None)
        .await
        .assert_status(400)
        .assert_contains("choose a file to upload");

    // delete: gone from the library and audited
    let deleted = browser
        .post(&format!("/console/media/{id}/delete"), &[])
        .await;
    assert_eq!(deleted.status, 303, "{}", deleted.body);
    browser.follow(&deleted).await.assert_contains("deleted");
    let gone = app
        .admin_get("/v1/admin/media?unused=true", Some(&token))
        .await;
    assert!(
        !gone
            .ok()
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["id"] == id.as_str())
    );
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM audit_log WHERE action = 'media.delete' AND target_id = $1",
            &[&id],
        )
        .await,
        1
    );
    // a file in use cannot be deleted from here either
    let used = app
        .text(
            "SELECT media_id FROM questions WHERE media_id IS NOT NULL LIMIT 1",
            &[],
        )
        .await;
    browser
        .post(&format!("/console/media/{used}/delete"), &[])
        .await
        .assert_status(409);
    // and without the token nothing is deleted
    browser
        .post_raw(&format!("/console/media/{used}/delete"), &[])
        .await
        .assert_status(403);

    let mut zh = tests::console::Console::new_in(&app.admin_url, "zh-CN");
    zh.sign_in(&app.admin_username, &app.admin_password).await;
    zh.get("/console/media")
        .await
        .assert_contains("媒体库")
        .assert_contains("道题目");
}

async fn csv_import_and_export_carry_media(app: TestApp) {
    let (token, _, _) = app.admin_login().await;
    let png = picture(5);
    let id = sha256_hex(&png);
    let uploaded = app
        .client
        .post(app.url(Service::Admin, "/v1/admin/media"))
        .bearer_auth(&token)
        .body(png)
        .send()
        .await
        .unwrap();
    assert_eq!(uploaded.status(), 200);
    let header = "categoryId,contentType,difficulty,stemText,correctAnswer,distractor1,\
                  distractor2,distractor3,distractor4,distractor5,cardSummary,cardDeepDive,\
                  cardSourceRef";
    let import = |body: String| {
        let app = &app;
        let token = token.clone();
        async move {
            let resp = app
                .client
                .post(app.url(Service::Admin, "/v1/admin/questions/import-csv"))
                .bearer_auth(&token)
                .header("content-type", "text/csv")
                .body(body)
                .send()
                .await
                .unwrap();
            TestApp::read(resp).await
        }
    };
    let csv = format!(
        "{header},mediaId,mediaAlt\n\
         world-flags,image,2,Which disc is this?,Teal,Red,Blue,,,,,,,{id},A teal disc\n\
         world-flags,text,1,Plain question?,Yes,No,Maybe,,,,,,,,\n"
    );
    let done = import(csv).await;
    assert_eq!(done.status, 200, "{:?}", done.body);
    assert_eq!(done.ok()["succeeded"], 2);
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM questions WHERE media_id = $1 AND media_alt = 'A teal disc'",
            &[&id],
        )
        .await,
        1
    );
    // a media id the library does not have: the row is refused by name
    let missing = format!(
        "{header},mediaId,mediaAlt\nworld-flags,image,2,Which?,A,B,C,,,,,,,{},An alt\n",
        "0".repeat(64)
    );
    let refused = import(missing).await;
    assert_eq!(refused.status, 400, "{:?}", refused.body);
    assert!(
        refused
            .body
            .to_string()
            .contains("not in the media library"),
        "{:?}",
        refused.body
    );

    // the export of a track with media writes the two columns; one without keeps 13
    let export = |query: &'static str| {
        let app = &app;
        let token = token.clone();
        async move {
            app.client
                .get(app.url(
                    Service::Admin,
                    &format!("/v1/admin/questions/export?format=csv&{query}"),
                ))
                .bearer_auth(&token)
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap()
        }
    };
    let flags_csv = export("categoryId=world-flags").await;
    let first = flags_csv.lines().next().unwrap();
    assert_eq!(first, format!("{header},mediaId,mediaAlt"));
    assert!(
        flags_csv.contains(&format!(",{id},A teal disc\r\n")),
        "{flags_csv}"
    );
    let geo_csv = export("categoryId=world-geography").await;
    assert_eq!(geo_csv.lines().next().unwrap(), header);
    // the template keeps the spec's 13
    let template = app
        .client
        .get(app.url(Service::Admin, "/v1/admin/questions/import-csv/template"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    if template.status() == 200 {
        assert_eq!(template.text().await.unwrap().trim_end(), header);
    }
}

async fn import_zip(app: &TestApp, token: &str, body: Vec<u8>) -> tests::Resp {
    let resp = app
        .client
        .post(app.url(Service::Admin, "/v1/admin/questions/import-zip"))
        .bearer_auth(token)
        .header("content-type", "application/zip")
        .body(body)
        .send()
        .await
        .unwrap();
    TestApp::read(resp).await
}

/// A zip of `entries` (name, bytes), deflated.
fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    use std::io::Write;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes) in entries {
        zip.start_file(
            *name,
            zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated),
        )
        .unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

async fn a_bank_moves_with_its_media_as_a_zip(app: TestApp) {
    use std::io::Read;
    let (token, _, _) = app.admin_login().await;
    let resp = app
        .client
        .get(app.url(
            Service::Admin,
            "/v1/admin/questions/export?format=zip&categoryId=world-flags",
        ))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "application/zip");
    assert!(
        resp.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains("questions.zip")
    );
    let bundle = resp.bytes().await.unwrap().to_vec();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bundle.clone())).unwrap();
    let mut json = String::new();
    archive
        .by_name("questions.json")
        .unwrap()
        .read_to_string(&mut json)
        .unwrap();
    let export: Value = serde_json::from_str(&json).unwrap();
    let questions = export["questions"].as_array().unwrap();
    assert_eq!(questions.len(), 12);
    let mut files = 0;
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).unwrap();
        let full = entry.name().unwrap().to_string();
        let Some(name) = full.strip_prefix("media/").map(str::to_string) else {
            continue;
        };
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).unwrap();
        assert_eq!(name, format!("{}.png", sha256_hex(&bytes)));
        assert!(
            questions
                .iter()
                .any(|q| format!("{}.png", q["media"]["id"].as_str().unwrap()) == name)
        );
        files += 1;
    }
    assert_eq!(files, 12);
    assert_eq!(
        app.scalar(
            "SELECT count(*) FROM audit_log WHERE action = 'question.export'
               AND CAST(after_state AS TEXT) LIKE '%zip%'",
            &[],
        )
        .await,
        1
    );

    // another deployment: no demo content, the category made by hand
    let fresh = TestApp::spawn(app.engine).await;
    fresh
        .exec(
            "INSERT INTO categories (id, name, slug, created_at, updated_at)
             VALUES ($1, 'Flags', $1, 0, 0)",
            &["world-flags"],
        )
        .await;
    let fresh_token = fresh.admin_login().await.0;
    let done = import_zip(&fresh, &fresh_token, bundle.clone()).await;
    assert_eq!(done.status, 200, "{:?}", done.body);
    assert_eq!(done.ok()["succeeded"], 12);
    assert_eq!(
        fresh
            .scalar(
                "SELECT count(*) FROM questions q JOIN media m ON m.id = q.media_id
                 WHERE q.status = 'draft' AND q.content_type = 'image' AND q.media_alt IS NOT NULL",
                &[],
            )
            .await,
        12
    );
    // the files are served there, byte for byte
    let id = fresh
        .text("SELECT media_id FROM questions LIMIT 1", &[])
        .await;
    let served = fresh
        .client
        .get(fresh.url(Service::Admin, &format!("/media/{id}.png")))
        .send()
        .await
        .unwrap();
    assert_eq!(served.status(), 200);
    assert_eq!(sha256_hex(&served.bytes().await.unwrap()), id);
    assert_eq!(
        fresh
            .scalar(
                "SELECT count(*) FROM audit_log WHERE action = 'question.import_zip'",
                &[],
            )
            .await,
        1
    );

    // refusals: not a zip, no questions.json, a file that is no media, a bomb
    let before = fresh.scalar("SELECT count(*) FROM questions", &[]).await;
    let not_zip = import_zip(&fresh, &fresh_token, b"plain text".to_vec()).await;
    assert_eq!(not_zip.status, 400, "{:?}", not_zip.body);
    assert!(not_zip.body.to_string().contains("not a question bundle"));
    let empty = import_zip(&fresh, &fresh_token, Vec::new()).await;
    assert_eq!(empty.status, 400);
    let no_json = import_zip(&fresh, &fresh_token, zip_of(&[("readme.txt", b"hi")])).await;
    assert_eq!(no_json.status, 400);
    assert!(no_json.body.to_string().contains("questions.json"));
    let svg_id = sha256_hex(SVG);
    let item = serde_json::json!({"questions": [{
        "stem": {"text": "Which?"}, "contentType": "image", "correctAnswer": "A",
        "distractors": ["B", "C"], "categoryId": "world-flags", "difficulty": 1,
        "media": {"id": svg_id, "alt": "a picture"}
    }]})
    .to_string();
    let svg_name = format!("media/{svg_id}.png");
    let hostile = import_zip(
        &fresh,
        &fresh_token,
        zip_of(&[("questions.json", item.as_bytes()), (&svg_name, SVG)]),
    )
    .await;
    assert_eq!(hostile.status, 400, "{:?}", hostile.body);
    assert_eq!(hostile.body["error"]["code"], "VALIDATION_ERROR");
    // a PNG's signature and 200 MB of zeros, a few hundred KB packed: stopped at the
    // image limit, unpacked no further
    let mut zeros = vec![0u8; 200 * 1024 * 1024];
    zeros[..8].copy_from_slice(b"\x89PNG\r\n\x1a\n");
    let bomb_name = format!("media/{}.png", "b".repeat(64));
    let bomb_item = item.replace(&svg_id, &"b".repeat(64));
    let bomb = zip_of(&[
        ("questions.json", bomb_item.as_bytes()),
        (&bomb_name, &zeros),
    ]);
    drop(zeros);
    assert!(bomb.len() < 2 * 1024 * 1024, "{}", bomb.len());
    let refused = import_zip(&fresh, &fresh_token, bomb).await;
    assert_eq!(refused.status, 413, "{:?}", refused.body);
    // a directory longer than any bundle's is refused before it is read
    let names: Vec<String> = (0..2_100).map(|i| format!("media/{i}.png")).collect();
    let entries: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b""[..])).collect();
    let crowded = import_zip(&fresh, &fresh_token, zip_of(&entries)).await;
    assert_eq!(crowded.status, 400, "{:?}", crowded.body);
    assert!(
        crowded
            .body
            .to_string()
            .contains("its directory lists 2100 files")
    );
    // ... and so is one hiding behind a second, small end record in the archive's
    // comment (the zip reader would take the large one): issue 53
    let mut disguised = zip_of(&entries);
    let fake = b"PK\x05\x06\0\0\0\0\x01\0\x01\0\x2e\0\0\0\0\0\0\0\0\0";
    let n = disguised.len();
    disguised[n - 2..].copy_from_slice(&(fake.len() as u16).to_le_bytes());
    disguised.extend_from_slice(fake);
    let disguised = import_zip(&fresh, &fresh_token, disguised).await;
    assert_eq!(disguised.status, 400, "{:?}", disguised.body);
    assert!(
        disguised
            .body
            .to_string()
            .contains("it has no single zip end record"),
        "{:?}",
        disguised.body
    );
    // a directory whose files are fewer than its end record says is refused as well
    let mut short = zip_of(&[("questions.json", item.as_bytes())]);
    let n = short.len();
    // the end record's count of files on this disk and in all: 2
    short[n - 22 + 8..n - 22 + 12].copy_from_slice(&[2, 0, 2, 0]);
    let short = import_zip(&fresh, &fresh_token, short).await;
    assert_eq!(short.status, 400, "{:?}", short.body);
    assert!(
        short
            .body
            .to_string()
            .contains("does not hold the files it lists"),
        "{:?}",
        short.body
    );
    assert_eq!(
        fresh.scalar("SELECT count(*) FROM questions", &[]).await,
        before
    );
}
