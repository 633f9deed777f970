//! What an uploaded file is, decided from its bytes alone (never its name or the
//! `Content-Type` a client sent), and the rules it must pass before it is stored: an
//! allowed format, the size of its kind, an image's sides, a file that is whole; a JPEG
//! loses its metadata segments (EXIF with GPS positions, XMP, IPTC, comments).

use crate::closed_set::closed_set;
use std::fmt;

use crate::message::{Message, msg};

use img_parts::Bytes;

/// How many leading bytes decide a file's format (WebM's marker may sit up to byte 256;
/// the rest of the formats need a few dozen).
pub const SNIFF_BYTES: usize = 4096;

closed_set! {
    /// The kind of a media file: `image`, `audio` or `video` (the three kinds a
    /// question can carry).
    pub enum MediaKind in "content-type" {
        Image = "image",
        Audio = "audio",
        Video = "video",
    }
}

/// The formats the service stores: the kind, the type it is served with, its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MediaFormat {
    Png,
    Jpeg,
    Webp,
    Mp3,
    Aac,
    M4a,
    Ogg,
    Mp4,
    Webm,
}

impl MediaFormat {
    pub const ALL: [MediaFormat; 9] = [
        Self::Png,
        Self::Jpeg,
        Self::Webp,
        Self::Mp3,
        Self::Aac,
        Self::M4a,
        Self::Ogg,
        Self::Mp4,
        Self::Webm,
    ];

    pub fn kind(self) -> MediaKind {
        match self {
            Self::Png | Self::Jpeg | Self::Webp => MediaKind::Image,
            Self::Mp3 | Self::Aac | Self::M4a | Self::Ogg => MediaKind::Audio,
            Self::Mp4 | Self::Webm => MediaKind::Video,
        }
    }

    /// The `Content-Type` it is served with.
    pub fn mime(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Jpeg => "image/jpeg",
            Self::Webp => "image/webp",
            Self::Mp3 => "audio/mpeg",
            Self::Aac => "audio/aac",
            Self::M4a => "audio/mp4",
            Self::Ogg => "audio/ogg",
            Self::Mp4 => "video/mp4",
            Self::Webm => "video/webm",
        }
    }

    /// The extension of its URL and its key in the store.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Png => "png",
            Self::Jpeg => "jpg",
            Self::Webp => "webp",
            Self::Mp3 => "mp3",
            Self::Aac => "aac",
            Self::M4a => "m4a",
            Self::Ogg => "ogg",
            Self::Mp4 => "mp4",
            Self::Webm => "webm",
        }
    }

    /// How its metadata is laid out, for `media_metadata::edits`.
    pub fn container(self) -> crate::domain::media_metadata::Container {
        use crate::domain::media_metadata::Container;
        match self {
            Self::Mp3 | Self::Aac => Container::Id3,
            Self::Mp4 | Self::M4a => Container::IsoBoxes,
            _ => Container::Other,
        }
    }

    pub fn from_mime(mime: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.mime() == mime)
    }

    pub fn from_extension(ext: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.extension() == ext)
    }
}

/// Why a file is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MediaRefusal {
    Empty,
    /// Not one of [`MediaFormat::ALL`] (SVG, HTML, a zip, …): what the bytes look like,
    /// when anything.
    UnsupportedType(Option<&'static str>),
    TooLarge {
        kind: MediaKind,
        max_bytes: u64,
    },
    ImageTooLarge {
        width: u64,
        height: u64,
        max_side: u64,
    },
    /// The file ends before its format says it does, or its header cannot be read.
    Damaged(MediaFormat),
    /// An audio file with no sound track, a video with no picture track.
    NoTrack {
        format: MediaFormat,
        kind: MediaKind,
    },
}

impl MediaRefusal {
    /// What the uploader is told.
    pub fn message(&self) -> Message {
        match self {
            Self::Empty => msg::THE_FILE_IS_EMPTY,
            Self::UnsupportedType(None) => msg::THE_FILE_IS_NOT_A_SUPPORTED_MEDIA_TYPE,
            Self::UnsupportedType(Some(seen)) => {
                msg::the_file_is_seen_not_a_supported_media_type(seen)
            }
            Self::TooLarge { kind, max_bytes } => match kind {
                MediaKind::Image => msg::an_image_file_may_be_at_most_max_bytes(max_bytes),
                MediaKind::Audio => msg::an_audio_file_may_be_at_most_max_bytes(max_bytes),
                MediaKind::Video => msg::a_video_file_may_be_at_most_max_bytes(max_bytes),
            },
            Self::ImageTooLarge {
                width,
                height,
                max_side,
            } => msg::the_image_is_width_x_height_pixels(width, height, max_side),
            Self::Damaged(format) => msg::the_ext_file_is_damaged_or_cut_short(format.extension()),
            Self::NoTrack { format, kind } => match kind {
                MediaKind::Video => msg::the_ext_file_has_no_picture_track(format.extension()),
                _ => msg::the_ext_file_has_no_sound_track(format.extension()),
            },
        }
    }
}

/// The English text (logs).
impl fmt::Display for MediaRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.message().fmt(f)
    }
}

/// The format of a file from its first bytes ([`SNIFF_BYTES`] of them, or all of a
/// shorter file).
pub fn sniff(head: &[u8]) -> Result<MediaFormat, MediaRefusal> {
    if head.is_empty() {
        return Err(MediaRefusal::Empty);
    }
    let Some(seen) = infer::get(head) else {
        return Err(MediaRefusal::UnsupportedType(None));
    };
    match seen.mime_type() {
        "image/png" => Ok(MediaFormat::Png),
        "image/jpeg" => Ok(MediaFormat::Jpeg),
        "image/webp" => Ok(MediaFormat::Webp),
        "audio/mpeg" => Ok(MediaFormat::Mp3),
        "audio/aac" => Ok(MediaFormat::Aac),
        "audio/m4a" => Ok(MediaFormat::M4a),
        // Ogg Opus is Ogg: one container, served as one type.
        "audio/ogg" | "audio/opus" => Ok(MediaFormat::Ogg),
        "video/mp4" => Ok(MediaFormat::Mp4),
        "video/webm" => Ok(MediaFormat::Webm),
        other => Err(MediaRefusal::UnsupportedType(Some(other))),
    }
}

/// The byte limit of each kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SizeLimits {
    pub image: u64,
    pub audio: u64,
    pub video: u64,
}

impl SizeLimits {
    pub fn of(&self, kind: MediaKind) -> u64 {
        match kind {
            MediaKind::Image => self.image,
            MediaKind::Audio => self.audio,
            MediaKind::Video => self.video,
        }
    }

    /// Refuses `bytes` over the limit of `format`'s kind.
    pub fn check(&self, format: MediaFormat, bytes: u64) -> Result<(), MediaRefusal> {
        let max_bytes = self.of(format.kind());
        if bytes > max_bytes {
            return Err(MediaRefusal::TooLarge {
                kind: format.kind(),
                max_bytes,
            });
        }
        Ok(())
    }
}

/// What the service keeps of an image after its checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckedImage {
    /// The bytes to store: without their metadata (`strip_jpeg_metadata`,
    /// `media_metadata::strip_png`, `media_metadata::strip_webp`).
    pub bytes: Bytes,
    pub width: u64,
    pub height: u64,
}

/// Checks a whole image of `format`: its sides (read from the header, nothing decoded)
/// at most `max_side`, the file whole; strips its metadata.
pub fn check_image(
    format: MediaFormat,
    bytes: Bytes,
    max_side: u64,
) -> Result<CheckedImage, MediaRefusal> {
    let size = imagesize::blob_size(&bytes).map_err(|_| MediaRefusal::Damaged(format))?;
    let (width, height) = (size.width as u64, size.height as u64);
    if width == 0 || height == 0 {
        return Err(MediaRefusal::Damaged(format));
    }
    if width > max_side || height > max_side {
        return Err(MediaRefusal::ImageTooLarge {
            width,
            height,
            max_side,
        });
    }
    if !is_whole(format, &bytes) {
        return Err(MediaRefusal::Damaged(format));
    }
    let bytes = match format {
        MediaFormat::Jpeg => strip_jpeg_metadata(bytes).ok_or(MediaRefusal::Damaged(format))?,
        MediaFormat::Png => crate::domain::media_metadata::strip_png(&bytes)
            .map(Bytes::from)
            .ok_or(MediaRefusal::Damaged(format))?,
        MediaFormat::Webp => crate::domain::media_metadata::strip_webp(&bytes)
            .map(Bytes::from)
            .ok_or(MediaRefusal::Damaged(format))?,
        _ => bytes,
    };
    Ok(CheckedImage {
        bytes,
        width,
        height,
    })
}

/// Whether an image file ends where its format says: a PNG with its `IEND` chunk, a
/// WebP as long as its RIFF header says (a JPEG's end is found as its metadata goes:
/// [`strip_jpeg_metadata`]).
fn is_whole(format: MediaFormat, bytes: &[u8]) -> bool {
    const IEND: [u8; 12] = [0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xAE, 0x42, 0x60, 0x82];
    match format {
        MediaFormat::Png => bytes.ends_with(&IEND),
        MediaFormat::Webp => bytes
            .get(4..8)
            .and_then(|s| <[u8; 4]>::try_from(s).ok())
            .is_some_and(|len| u64::from(u32::from_le_bytes(len)) + 8 == bytes.len() as u64),
        _ => true,
    }
}

/// A JPEG without its application segments other than JFIF (APP0) and Adobe's colour
/// transform (APP14), without comments, and without anything after its end-of-image
/// marker: EXIF (camera, GPS position, a thumbnail), XMP, IPTC, ICC profiles and the
/// trailers phones append (a second picture, a motion clip) go; the image data stays
/// byte for byte. `None` when the segments cannot be read or the image data never ends
/// (a file cut short). The first end-of-image marker in the scan data is the image's
/// end: the scan data stuffs every 0xFF byte, so no marker hides in it.
pub fn strip_jpeg_metadata(bytes: Bytes) -> Option<Bytes> {
    use img_parts::jpeg::{Jpeg, markers};
    let mut jpeg = Jpeg::from_bytes(bytes).ok()?;
    jpeg.segments_mut().retain(|segment| {
        let marker = segment.marker();
        let is_app = (markers::APP0..=markers::APP15).contains(&marker);
        let kept_app = marker == markers::APP0 || marker == markers::APP14;
        (!is_app || kept_app) && marker != markers::COM
    });
    // the scan data starts after the start-of-image marker and every segment's header
    let scan_start = 2 + jpeg.segments().iter().map(|s| s.len()).sum::<usize>();
    if !jpeg.segments().last()?.has_entropy() {
        return None;
    }
    let encoded = jpeg.encoder().bytes();
    let end = encoded
        .get(scan_start..)?
        .windows(2)
        .position(|w| w == [0xFF, markers::EOI])?;
    Some(encoded.slice(..scan_start + end + 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PNG header claiming `width` × `height`, with one tiny data chunk.
    fn png(width: u32, height: u32) -> Vec<u8> {
        let mut out = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
        let mut ihdr = Vec::new();
        ihdr.extend_from_slice(&width.to_be_bytes());
        ihdr.extend_from_slice(&height.to_be_bytes());
        ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
        chunk(&mut out, b"IHDR", &ihdr);
        chunk(
            &mut out,
            b"IDAT",
            &[0x78, 0x9C, 0x63, 0x60, 0, 0, 0, 4, 0, 1],
        );
        chunk(&mut out, b"IEND", &[]);
        out
    }

    fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        // the CRC is not checked by anything here but IEND's fixed one
        if kind == b"IEND" {
            out.extend_from_slice(&[0xAE, 0x42, 0x60, 0x82]);
        } else {
            out.extend_from_slice(&[0, 0, 0, 0]);
        }
    }

    /// A JPEG of `width` × `height` with an EXIF segment carrying `exif`.
    fn jpeg_with_exif(width: u16, height: u16, exif: &[u8]) -> Vec<u8> {
        let mut out = vec![0xFF, 0xD8];
        // APP0 JFIF
        out.extend_from_slice(&[
            0xFF, 0xE0, 0, 16, b'J', b'F', b'I', b'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0,
        ]);
        // APP1 EXIF
        let len = (exif.len() + 2 + 6) as u16;
        out.extend_from_slice(&[0xFF, 0xE1]);
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(b"Exif\0\0");
        out.extend_from_slice(exif);
        // COM
        out.extend_from_slice(&[0xFF, 0xFE, 0, 7, b'h', b'e', b'l', b'l', b'o']);
        // SOF0
        out.extend_from_slice(&[0xFF, 0xC0, 0, 11, 8]);
        out.extend_from_slice(&height.to_be_bytes());
        out.extend_from_slice(&width.to_be_bytes());
        out.extend_from_slice(&[1, 1, 0x11, 0]);
        // SOS, one byte of scan data, EOI
        out.extend_from_slice(&[0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 0x3F, 0, 0x55, 0xFF, 0xD9]);
        out
    }

    #[test]
    fn a_phone_trailer_after_the_image_goes() {
        let mut photo = jpeg_with_exif(8, 8, b"GPS");
        let image_end = photo.len();
        // a motion clip (with its own markers) appended after the end-of-image marker
        photo.extend_from_slice(b"MotionPhoto_Data\xFF\xD8\xFF\xD9ftypmp42");
        let checked = check_image(MediaFormat::Jpeg, Bytes::from(photo.clone()), 4096).unwrap();
        let out = checked.bytes.to_vec();
        assert!(out.ends_with(&[0x55, 0xFF, 0xD9]));
        assert!(!out.windows(6).any(|w| w == b"Motion"));
        let sos = |b: &[u8]| b.windows(2).position(|w| w == [0xFF, 0xDA]).unwrap();
        assert_eq!(&out[sos(&out)..], &photo[sos(&photo)..image_end]);
    }

    #[test]
    fn formats_come_from_the_bytes() {
        assert_eq!(sniff(&png(1, 1)), Ok(MediaFormat::Png));
        assert_eq!(sniff(&jpeg_with_exif(2, 2, b"x")), Ok(MediaFormat::Jpeg));
        assert_eq!(sniff(b"OggS\0\x02"), Ok(MediaFormat::Ogg));
        assert_eq!(sniff(b"ID3\x04\0\0\0\0\0\0"), Ok(MediaFormat::Mp3));
        assert_eq!(
            sniff(b"\0\0\0\x20ftypisom\0\0\x02\0isomiso2"),
            Ok(MediaFormat::Mp4)
        );
        assert_eq!(sniff(b""), Err(MediaRefusal::Empty));
    }

    #[test]
    fn scripts_pages_and_archives_are_refused() {
        let svg = br#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#;
        assert!(matches!(sniff(svg), Err(MediaRefusal::UnsupportedType(_))));
        let html = b"<!DOCTYPE html><html><script>alert(1)</script></html>";
        assert!(matches!(sniff(html), Err(MediaRefusal::UnsupportedType(_))));
        let zip = b"PK\x03\x04\x14\0\0\0\x08\0";
        assert_eq!(
            sniff(zip),
            Err(MediaRefusal::UnsupportedType(Some("application/zip")))
        );
        let gif = b"GIF89a\x01\0\x01\0";
        assert!(matches!(
            sniff(gif),
            Err(MediaRefusal::UnsupportedType(Some(_)))
        ));
    }

    #[test]
    fn every_format_round_trips_its_names() {
        for f in MediaFormat::ALL {
            assert_eq!(MediaFormat::from_mime(f.mime()), Some(f));
            assert_eq!(MediaFormat::from_extension(f.extension()), Some(f));
        }
        for k in MediaKind::ALL {
            assert_eq!(MediaKind::parse(k.as_str()), Some(k));
        }
    }

    #[test]
    fn each_kind_has_its_limit() {
        let limits = SizeLimits {
            image: 10,
            audio: 20,
            video: 30,
        };
        assert!(limits.check(MediaFormat::Png, 10).is_ok());
        assert_eq!(
            limits.check(MediaFormat::Png, 11),
            Err(MediaRefusal::TooLarge {
                kind: MediaKind::Image,
                max_bytes: 10
            })
        );
        assert!(limits.check(MediaFormat::Mp3, 20).is_ok());
        assert!(limits.check(MediaFormat::Webm, 31).is_err());
    }

    #[test]
    fn an_image_claiming_huge_sides_is_refused_unread() {
        let claim = png(100_000, 100_000);
        assert_eq!(
            check_image(MediaFormat::Png, Bytes::from(claim), 4096),
            Err(MediaRefusal::ImageTooLarge {
                width: 100_000,
                height: 100_000,
                max_side: 4096
            })
        );
        let fine = check_image(MediaFormat::Png, Bytes::from(png(64, 48)), 4096).unwrap();
        assert_eq!((fine.width, fine.height), (64, 48));
    }

    #[test]
    fn cut_files_are_refused() {
        let whole = png(4, 4);
        let cut = Bytes::copy_from_slice(&whole[..whole.len() - 6]);
        assert_eq!(
            check_image(MediaFormat::Png, cut, 4096),
            Err(MediaRefusal::Damaged(MediaFormat::Png))
        );
        let jpeg = jpeg_with_exif(8, 8, b"GPS");
        let cut = Bytes::copy_from_slice(&jpeg[..jpeg.len() - 3]);
        assert_eq!(
            check_image(MediaFormat::Jpeg, cut, 4096),
            Err(MediaRefusal::Damaged(MediaFormat::Jpeg))
        );
    }

    #[test]
    fn jpeg_metadata_is_removed_and_the_image_kept() {
        let jpeg = jpeg_with_exif(8, 6, b"GPSLatitude 31.2304N");
        let checked = check_image(MediaFormat::Jpeg, Bytes::from(jpeg.clone()), 4096).unwrap();
        assert_eq!((checked.width, checked.height), (8, 6));
        let out = checked.bytes.to_vec();
        assert!(!out.windows(4).any(|w| w == b"Exif"));
        assert!(!out.windows(3).any(|w| w == b"GPS"));
        assert!(!out.windows(5).any(|w| w == b"hello"));
        assert!(out.windows(4).any(|w| w == b"JFIF"));
        // the image data (start of scan to the end) is byte for byte the same
        let sos = |b: &[u8]| b.windows(2).position(|w| w == [0xFF, 0xDA]).unwrap();
        assert_eq!(&out[sos(&out)..], &jpeg[sos(&jpeg)..]);
        assert!(out.len() < jpeg.len());
    }
}
