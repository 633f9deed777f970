//! What an audio or video file holds, read by demuxing it (nothing is decoded): a track
//! of its kind, every packet to its end, how long it plays and, for a video, its
//! picture's size. A file whose container cannot be read, or with no packet, is damaged;
//! a video with no picture (or audio with no sound) is refused by name.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

use symphonia::core::codecs::CodecParameters;
use symphonia::core::formats::probe::Hint;
use symphonia::core::formats::{FormatId, FormatOptions, FormatReader, well_known};
use symphonia::core::io::{MediaSource, MediaSourceStream};
use symphonia::core::meta::MetadataOptions;
use symphonia::core::units::{Duration, TimeBase};

use super::media::{MediaFormat, MediaKind, MediaRefusal};

/// What a playable file is, as a question's media shows it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Playable {
    /// How long it plays, in milliseconds (`None` only when neither the container nor
    /// its packets say).
    pub duration_ms: Option<u64>,
    /// A video's picture, in pixels.
    pub width: Option<u64>,
    pub height: Option<u64>,
}

/// Reads the audio or video file `source` of `format` (decided from its first bytes) to
/// its end. A panic of the demuxer on hostile bytes is a damaged file, not a crash; so is
/// a file that holds more packets than its bytes can ([`MAX_EMPTY_PACKETS`]), or whose
/// reading takes longer than `deadline`.
pub fn check_playable(
    format: MediaFormat,
    source: Box<dyn MediaSource>,
    deadline: Instant,
) -> Result<Playable, MediaRefusal> {
    catch_unwind(AssertUnwindSafe(|| read(format, source, deadline)))
        .unwrap_or(Err(MediaRefusal::Damaged(format)))
}

/// Packets without a byte a file may hold: a few stand for gaps; a container that
/// declares millions of them (a fragment's sample count with no sample size) would keep
/// the reader busy without reading further.
pub const MAX_EMPTY_PACKETS: u64 = 4096;

/// The container symphonia must find for each format (the first bytes decided the
/// format; the probe looks further and might find another).
fn container_of(format: MediaFormat) -> Option<FormatId> {
    match format {
        MediaFormat::Mp3 => Some(well_known::FORMAT_ID_MP3),
        MediaFormat::Aac => Some(well_known::FORMAT_ID_ADTS),
        MediaFormat::M4a | MediaFormat::Mp4 => Some(well_known::FORMAT_ID_ISOMP4),
        MediaFormat::Ogg => Some(well_known::FORMAT_ID_OGG),
        MediaFormat::Webm => Some(well_known::FORMAT_ID_MKV),
        MediaFormat::Png | MediaFormat::Jpeg | MediaFormat::Webp => None,
    }
}

fn read(
    format: MediaFormat,
    source: Box<dyn MediaSource>,
    deadline: Instant,
) -> Result<Playable, MediaRefusal> {
    let damaged = || MediaRefusal::Damaged(format);
    let kind = format.kind();
    let mut hint = Hint::new();
    hint.with_extension(format.extension());
    let stream = MediaSourceStream::new(source, Default::default());
    let mut reader = symphonia::default::get_probe()
        .probe(
            &hint,
            stream,
            FormatOptions::default(),
            MetadataOptions::default(),
        )
        .map_err(|_| damaged())?;
    if Some(reader.format_info().format) != container_of(format) {
        return Err(damaged());
    }
    let mut facts = Playable::default();
    // the tracks of the file's kind, with their time bases
    let mut tracks: Vec<(u32, Option<TimeBase>)> = Vec::new();
    for track in reader.tracks() {
        match (&track.codec_params, kind) {
            (Some(CodecParameters::Audio(_)), MediaKind::Audio) => {}
            (Some(CodecParameters::Video(video)), MediaKind::Video) => {
                facts.width = facts.width.or(video.width.map(u64::from));
                facts.height = facts.height.or(video.height.map(u64::from));
            }
            _ => continue,
        }
        tracks.push((track.id, track.time_base));
    }
    if tracks.is_empty() {
        return Err(MediaRefusal::NoTrack { format, kind });
    }
    let declared = {
        let info = reader.media_info();
        info.time_base
            .zip(info.duration)
            .and_then(to_ms)
            .filter(|&ms| ms > 0)
    };
    let played = last_packet_end_ms(reader.as_mut(), &tracks, deadline).map_err(|()| damaged())?;
    let Some(played) = played else {
        return Err(damaged());
    };
    // A container may count frames its packets do not hold (a file cut short, an
    // encoder's padding): the shorter of the two is what plays.
    facts.duration_ms = Some(declared.map_or(played, |d| d.min(played)));
    Ok(facts)
}

/// Reads every packet: where the last one of `tracks` ends, in milliseconds (`None`
/// without a packet of theirs); `Err` when the stream breaks before its end, holds more
/// than [`MAX_EMPTY_PACKETS`] empty packets, or is still being read at `deadline`.
fn last_packet_end_ms(
    reader: &mut dyn FormatReader,
    tracks: &[(u32, Option<TimeBase>)],
    deadline: Instant,
) -> Result<Option<u64>, ()> {
    let mut end: Option<u64> = None;
    let mut empty = 0u64;
    for read in 0u64.. {
        if read % 1024 == 0 && Instant::now() > deadline {
            return Err(());
        }
        let packet = match reader.next_packet() {
            Ok(Some(packet)) => packet,
            Ok(None) => return Ok(end),
            Err(_) => return Err(()),
        };
        if packet.data.is_empty() {
            empty += 1;
            if empty > MAX_EMPTY_PACKETS {
                return Err(());
            }
        }
        let Some(time_base) = tracks
            .iter()
            .find(|(id, _)| *id == packet.track_id)
            .and_then(|(_, tb)| *tb)
        else {
            continue;
        };
        // a track may start before zero (an encoder's delay): it plays from zero
        let ticks = packet
            .pts
            .get()
            .saturating_add(i64::try_from(packet.dur.get()).unwrap_or(i64::MAX))
            .max(0);
        let ticks = u64::try_from(ticks).unwrap_or(0);
        if let Some(ms) = to_ms((time_base, Duration::new(ticks))) {
            end = Some(end.map_or(ms, |e| e.max(ms)));
        }
    }
    Err(())
}

fn to_ms((time_base, duration): (TimeBase, Duration)) -> Option<u64> {
    let time = time_base.calc_duration(duration)?;
    u64::try_from(time.as_micros() / 1000).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn fixture(name: &str) -> Vec<u8> {
        let path = format!(
            "{}/../tests/fixtures/media/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    fn check(format: MediaFormat, bytes: Vec<u8>) -> Result<Playable, MediaRefusal> {
        let deadline = Instant::now() + std::time::Duration::from_secs(10);
        check_playable(format, Box::new(Cursor::new(bytes)), deadline)
    }

    #[test]
    fn each_allowed_format_reports_how_long_it_plays() {
        // ffmpeg made each of 1.5 s of a tone (a video: 2 s of 64 × 48 at 10 frames a
        // second); ADTS has no header to say so: its 34 frames of 1,024 samples play
        // 1.578 s (an M4A trims its encoder's priming by its edit list)
        for (name, format, ms, side) in [
            ("tone.mp3", MediaFormat::Mp3, 1500, None),
            ("tone.aac", MediaFormat::Aac, 1578, None),
            ("tone.m4a", MediaFormat::M4a, 1500, None),
            ("tone.ogg", MediaFormat::Ogg, 1500, None),
            ("tone-opus.ogg", MediaFormat::Ogg, 1506, None),
            ("clip.mp4", MediaFormat::Mp4, 2000, Some((64, 48))),
            ("clip.webm", MediaFormat::Webm, 2000, Some((64, 48))),
        ] {
            let facts = check(format, fixture(name)).unwrap();
            assert_eq!(facts.duration_ms, Some(ms), "{name}");
            assert_eq!(facts.width, side.map(|s: (u64, u64)| s.0), "{name}");
            assert_eq!(facts.height, side.map(|s| s.1), "{name}");
        }
    }

    #[test]
    fn a_file_cut_short_is_damaged_or_as_long_as_what_is_left() {
        for (name, format) in [
            ("clip.mp4", MediaFormat::Mp4),
            ("clip.webm", MediaFormat::Webm),
            ("tone.m4a", MediaFormat::M4a),
            ("tone.ogg", MediaFormat::Ogg),
        ] {
            let mut bytes = fixture(name);
            bytes.truncate(bytes.len() / 2);
            assert_eq!(check(format, bytes), Err(MediaRefusal::Damaged(format)));
        }
        // an MP3 is a run of frames: half of them play for half as long, whatever its
        // header counted
        let mut half = fixture("tone.mp3");
        half.truncate(half.len() / 2);
        let ms = check(MediaFormat::Mp3, half).unwrap().duration_ms.unwrap();
        assert!((600..=800).contains(&ms), "{ms}");
    }

    #[test]
    fn a_signature_followed_by_noise_is_damaged() {
        let mut mp4 = b"\0\0\0\x20ftypisom\0\0\x02\0isomiso2avc1mp41".to_vec();
        mp4.extend((0..5000).map(|i| (i % 253) as u8));
        assert_eq!(
            check(MediaFormat::Mp4, mp4),
            Err(MediaRefusal::Damaged(MediaFormat::Mp4))
        );
        let mut mp3 = b"ID3\x04\0\0\0\0\0\0".to_vec();
        mp3.extend((0..5000).map(|i| (i % 251) as u8));
        assert_eq!(
            check(MediaFormat::Mp3, mp3),
            Err(MediaRefusal::Damaged(MediaFormat::Mp3))
        );
    }

    #[test]
    fn a_video_without_pictures_is_refused_by_name() {
        // an M4A is an MP4 with a sound track only
        assert_eq!(
            check(MediaFormat::Mp4, fixture("tone.m4a")),
            Err(MediaRefusal::NoTrack {
                format: MediaFormat::Mp4,
                kind: MediaKind::Video
            })
        );
    }

    #[test]
    fn a_container_other_than_the_first_bytes_said_is_damaged() {
        // an Ogg file after an ID3 tag: its first bytes say MP3, the probe would find Ogg
        let mut tagged = b"ID3\x04\0\0\0\0\0\0".to_vec();
        tagged.extend_from_slice(&fixture("tone.ogg"));
        assert_eq!(
            check(MediaFormat::Mp3, tagged),
            Err(MediaRefusal::Damaged(MediaFormat::Mp3))
        );
        assert_eq!(
            check(MediaFormat::Webm, fixture("clip.mp4")),
            Err(MediaRefusal::Damaged(MediaFormat::Webm))
        );
    }

    #[test]
    fn billions_of_empty_samples_are_damaged_not_counted() {
        // one fragment declaring 2³² − 1 samples of no size (tests/fixtures/media/make.sh)
        assert_eq!(
            check(MediaFormat::Mp4, fixture("empty-samples.mp4")),
            Err(MediaRefusal::Damaged(MediaFormat::Mp4))
        );
    }

    #[test]
    fn reading_past_the_deadline_is_damaged() {
        let past = Instant::now();
        assert_eq!(
            check_playable(
                MediaFormat::Mp4,
                Box::new(Cursor::new(fixture("clip.mp4"))),
                past
            ),
            Err(MediaRefusal::Damaged(MediaFormat::Mp4))
        );
    }

    #[test]
    fn frames_without_a_header_are_counted() {
        // 100 silent MPEG-1 layer III frames of 1,152 samples at 44.1 kHz, no Xing
        // header: 2.612 s
        let frame = [&[0xFF, 0xFB, 0x90, 0x00][..], &[0; 413]].concat();
        let mp3 = frame.repeat(100);
        assert_eq!(
            check(MediaFormat::Mp3, mp3).unwrap().duration_ms,
            Some(2612)
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Whatever follows a real file's first bytes, the answer is facts or a refusal.
        #[test]
        fn noise_never_panics(cut in 0usize..4000, noise in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..2000)) {
            for (name, format) in [("clip.mp4", MediaFormat::Mp4), ("clip.webm", MediaFormat::Webm), ("tone.mp3", MediaFormat::Mp3), ("tone.ogg", MediaFormat::Ogg)] {
                let mut bytes = fixture(name);
                bytes.truncate(cut.min(bytes.len()));
                bytes.extend_from_slice(&noise);
                let _ = check(format, bytes);
            }
        }
    }
}
