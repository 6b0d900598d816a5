//! Names and descriptions of saved games, shared by the page and the terminal game: a file name a
//! player can read (terrain, date, level, turn) and a line of public facts, never the deal.

use crate::record::GameRecord;

/// A save's file name without `.json`: `castle-field-2026-11-27-1412-strong-turn7`, from the
/// record's public facts and the time it is saved (seconds since 1970, UTC). Only letters,
/// digits and `-`, so that it is a safe file name everywhere.
pub fn save_name(record: &GameRecord, unix_seconds: u64) -> String {
    let (date, time) = civil_date_time(unix_seconds);
    let level = record
        .session
        .as_ref()
        .map_or("game".to_string(), |n| n.level.clone());
    let name = format!(
        "{}-{date}-{time}-{level}-turn{}",
        record.terrain, record.result.turns
    );
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// A save in words from its public facts: "Castle Field, saved 2026-11-27 14:12 UTC, you blue
/// against strong, turn 7".
pub fn describe_save(record: &GameRecord, terrain_name: &str, unix_seconds: u64) -> String {
    let (date, time) = civil_date_time(unix_seconds);
    let who = record
        .session
        .as_ref()
        .map(|n| format!(", you {} against {}", n.human, n.level))
        .unwrap_or_default();
    let end = match record.result.end.as_str() {
        "unfinished" => String::new(),
        end => format!(" (over: {end})"),
    };
    format!(
        "{terrain_name}, saved {date} {}:{} UTC{who}, turn {}{end}",
        &time[..2],
        &time[2..],
        record.result.turns
    )
}

/// `("2026-11-27", "1412")` for a time in seconds since 1970 (UTC), by the proleptic Gregorian
/// calendar (Howard Hinnant's days-to-civil algorithm).
fn civil_date_time(unix_seconds: u64) -> (String, String) {
    let days = (unix_seconds / 86_400) as i64;
    let minutes = (unix_seconds % 86_400) / 60;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (
        format!("{year:04}-{month:02}-{day:02}"),
        format!("{:02}{:02}", minutes / 60, minutes % 60),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_the_calendars() {
        assert_eq!(civil_date_time(0), ("1970-01-01".into(), "0000".into()));
        // 2026-11-27 14:12:05 UTC.
        assert_eq!(
            civil_date_time(1_795_788_725),
            ("2026-11-27".into(), "1412".into())
        );
        // A leap day.
        assert_eq!(civil_date_time(951_782_400).0, "2000-02-29");
    }
}
