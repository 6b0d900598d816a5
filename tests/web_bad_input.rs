//! Bad files through the page's API: a save (Load) or a record (the replay viewer, "play from
//! here") that is corrupt, of another format or played on other terrain data gets a 400 with a
//! message in words, and the open game is unchanged.

mod web_support;

use web_support::{get, post, Reply};

fn refused(r: Reply, words: &str) {
    assert_eq!(r.status, 400, "{}", r.body);
    let error = r.json()["error"].as_str().unwrap().to_string();
    assert!(error.contains(words), "'{words}' missing in: {error}");
}

#[test]
fn bad_saves_and_records_are_refused_in_words_and_the_game_goes_on() {
    let (addr, saves) = web_support::server("bad-input", 8);
    let created = post(
        addr,
        "/api/games",
        r#"{"terrain": "castle_field", "level": "beginner", "first": "human", "seed": 4}"#,
    );
    assert_eq!(created.status, 200, "{}", created.body);
    let id = created.json()["id"].as_str().unwrap().to_string();
    let before = get(addr, &format!("/api/games/{id}")).body;

    // A save of the game, then copies of it spoilt three ways in the saves folder.
    let saved = post(addr, &format!("/api/games/{id}/save"), "");
    assert_eq!(saved.status, 200, "{}", saved.body);
    let name = saved.json()["name"].as_str().unwrap().to_string();
    let text = std::fs::read_to_string(saves.join(format!("{name}.json"))).unwrap();
    let mut other: serde_json::Value = serde_json::from_str(&text).unwrap();
    other["terrain_fingerprint"] = serde_json::json!("0123456789abcdef");
    for (file, content) in [
        (
            "corrupt",
            "{\"format\": \"toybattle-record/1\", \"steps\": [".to_string(),
        ),
        (
            "position",
            "{\"format\": \"toybattle-position/1\"}".to_string(),
        ),
        ("other-terrain", other.to_string()),
    ] {
        std::fs::write(saves.join(format!("{file}.json")), content).unwrap();
    }
    refused(
        post(addr, "/api/saves/corrupt/load", ""),
        "not a game record",
    );
    refused(
        post(addr, "/api/saves/position/load", ""),
        "toybattle-position/1",
    );
    refused(
        post(addr, "/api/saves/other-terrain/load", ""),
        "other terrain data than this program's Castle Field",
    );

    // The replay viewer and "play from here" with the same files.
    refused(
        post(
            addr,
            "/api/replay",
            "{\"format\": \"toybattle-record/1\", \"steps\": [",
        ),
        "not JSON",
    );
    refused(
        post(
            addr,
            "/api/replay",
            "{\"format\": \"toybattle-terrains/1\"}",
        ),
        "'toybattle-terrains/1'",
    );
    refused(
        post(addr, "/api/replay", &other.to_string()),
        "other terrain data than this program's Castle Field",
    );
    let from_here = |record: &str| {
        serde_json::json!({"record": record, "step": 0, "level": "beginner", "seat": "blue"})
            .to_string()
    };
    refused(
        post(addr, "/api/replay/play", &from_here(&text)),
        "not finished",
    );
    refused(
        post(addr, "/api/replay/play", &from_here("{corrupt")),
        "not JSON",
    );
    refused(
        post(
            addr,
            "/api/replay/play",
            r#"{"record": "{}", "step": 0, "level": "grandmaster", "seat": "blue"}"#,
        ),
        "unknown level",
    );

    assert_eq!(
        get(addr, &format!("/api/games/{id}")).body,
        before,
        "the game is unchanged"
    );
}
