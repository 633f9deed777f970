//! What an uploaded file says about where and by whom it was made, taken out before it
//! is stored and served to every player (JPEG's segments: `domain::media`). What
//! playback needs stays byte for byte; what goes:
//!
//! - PNG: every chunk but those that draw the picture (`IHDR`, `PLTE`, `IDAT`, `IEND`,
//!   transparency, colour space and gamma, pixel size, background, and the animation
//!   chunks of APNG): `eXIf`, `tEXt`, `iTXt`, `zTXt`, `tIME` and private chunks go.
//! - WebP: the `EXIF` and `XMP ` chunks, and their flags in `VP8X`.
//! - MP3 and AAC: ID3v2 tags at the start become tags of padding only (their frames,
//!   cover art included, zeroed; the tag's length stays, so nothing moves), ID3v1 and
//!   APEv2 tags at the end are cut off.
//! - MP4 and M4A: the `udta` and `meta` boxes of the movie and of each track (location
//!   `©xyz`, author, the iTunes tags and cover art) and top-level XMP `uuid` boxes
//!   become `free` boxes of the same length, zeroed, so every offset into the media data
//!   stays right.
//!
//! Kept: Ogg's Vorbis comment header and WebM's `Tags` (rewriting them means rewriting
//! the stream's pages or elements around them; the console's upload notes this), and
//! every track's own data.
//!
//! Images arrive whole in memory and are rewritten here; audio and video may be large
//! and sit in a file, so for them this answers the edits to make in place
//! ([`Edit`]), reading the file's headers through a closure.

/// How a file's metadata is laid out: what [`edits`] looks for (each format's is
/// named by `MediaFormat::container`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// ID3 tags around MPEG audio frames (MP3, AAC in ADTS).
    Id3,
    /// ISO base media boxes (MP4, M4A).
    IsoBoxes,
    /// Nothing this rewrites (images are rewritten whole; Ogg, WebM).
    Other,
}

/// A change to make to a file, in place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Edit {
    /// Write these bytes at this offset.
    Write { at: u64, bytes: Vec<u8> },
    /// Zero this many bytes from this offset.
    Zero { at: u64, len: u64 },
    /// Cut the file to this length.
    Truncate { len: u64 },
}

/// PNG chunks that draw the picture (critical ones, and the ancillary ones that change
/// how it looks or moves); every other chunk is metadata.
const PNG_KEPT: [&[u8; 4]; 18] = [
    b"IHDR", b"PLTE", b"IDAT", b"IEND", b"tRNS", b"gAMA", b"cHRM", b"sRGB", b"iCCP", b"sBIT",
    b"bKGD", b"pHYs", b"acTL", b"fcTL", b"fdAT", b"cICP", b"mDCv", b"cLLi",
];

/// A PNG without its metadata chunks (see the module's documentation); None when its
/// chunks cannot be walked to `IEND`.
pub fn strip_png(bytes: &[u8]) -> Option<Vec<u8>> {
    const SIGNATURE: usize = 8;
    let mut out = Vec::with_capacity(bytes.len());
    out.extend_from_slice(bytes.get(..SIGNATURE)?);
    let mut at = SIGNATURE;
    loop {
        let len = u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize;
        let kind: [u8; 4] = bytes.get(at + 4..at + 8)?.try_into().ok()?;
        let end = at.checked_add(12)?.checked_add(len)?;
        let whole = bytes.get(at..end)?;
        if PNG_KEPT.contains(&&kind) {
            out.extend_from_slice(whole);
        }
        at = end;
        if &kind == b"IEND" {
            return Some(out);
        }
    }
}

/// A WebP without its `EXIF` and `XMP ` chunks, their `VP8X` flags cleared and the RIFF
/// length set again; None when its chunks cannot be walked.
pub fn strip_webp(bytes: &[u8]) -> Option<Vec<u8>> {
    const HEADER: usize = 12;
    const EXIF_FLAG: u8 = 0x08;
    const XMP_FLAG: u8 = 0x04;
    if bytes.get(..4)? != b"RIFF" || bytes.get(8..12)? != b"WEBP" {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len());
    out.extend_from_slice(&bytes[..HEADER]);
    let mut at = HEADER;
    while at < bytes.len() {
        let kind: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
        let len = u32::from_le_bytes(bytes.get(at + 4..at + 8)?.try_into().ok()?) as usize;
        // chunks are padded to an even length
        let end = at.checked_add(8)?.checked_add(len)?.checked_add(len % 2)?;
        let whole = bytes.get(at..end.min(bytes.len()))?;
        match kind.to_ascii_uppercase().as_slice() {
            b"EXIF" | b"XMP " => {}
            b"VP8X" => {
                let mut chunk = whole.to_vec();
                if let Some(flags) = chunk.get_mut(8) {
                    *flags &= !(EXIF_FLAG | XMP_FLAG);
                }
                out.extend_from_slice(&chunk);
            }
            _ => out.extend_from_slice(whole),
        }
        at = end;
    }
    let riff_len = u32::try_from(out.len() - 8).ok()?;
    out[4..8].copy_from_slice(&riff_len.to_le_bytes());
    Some(out)
}

/// The edits that take an audio or video file's metadata out (see the module's
/// documentation), for a file of `len` bytes whose bytes `read(offset, n)` answers (up
/// to `n` of them; fewer at the end). Formats without such metadata need none.
pub fn edits(
    container: Container,
    len: u64,
    read: &mut dyn FnMut(u64, usize) -> Option<Vec<u8>>,
) -> Vec<Edit> {
    match container {
        Container::Id3 => id3_edits(len, read),
        Container::IsoBoxes => mp4_edits(len, read),
        Container::Other => Vec::new(),
    }
}

/// ID3v2 tags at the start (there may be several, one after another) become padding;
/// APEv2 and ID3v1 tags at the end are cut off.
fn id3_edits(len: u64, read: &mut dyn FnMut(u64, usize) -> Option<Vec<u8>>) -> Vec<Edit> {
    const ID3V1: u64 = 128;
    const APE_FOOTER: u64 = 32;
    let mut edits = Vec::new();
    let mut at = 0_u64;
    for _ in 0..8 {
        let Some(header) = read(at, 10).filter(|h| h.len() == 10 && h.starts_with(b"ID3")) else {
            break;
        };
        // the tag's length after its header: four 7-bit bytes
        if header[6..10].iter().any(|b| b & 0x80 != 0) {
            break;
        }
        let size = header[6..10]
            .iter()
            .fold(0_u64, |n, b| (n << 7) | u64::from(*b));
        let footer = if header[5] & 0x10 != 0 { 10 } else { 0 };
        let end = at + 10 + size + footer;
        if end > len {
            break;
        }
        // flags cleared (no extended header, no unsynchronisation, no footer): the
        // tag is its header and padding
        edits.push(Edit::Write {
            at: at + 5,
            bytes: vec![0],
        });
        edits.push(Edit::Zero {
            at: at + 10,
            len: size + footer,
        });
        at = end;
    }
    let mut end = len;
    if end >= ID3V1 && read(end - ID3V1, 3).is_some_and(|t| t == b"TAG") {
        end -= ID3V1;
    }
    if end >= APE_FOOTER
        && let Some(footer) = read(end - APE_FOOTER, APE_FOOTER as usize)
        && footer.len() == APE_FOOTER as usize
        && footer.starts_with(b"APETAGEX")
    {
        // its size counts the items and the footer; a header (flag bit 31) comes before
        let size = u64::from(u32::from_le_bytes([
            footer[12], footer[13], footer[14], footer[15],
        ]));
        let flags = u32::from_le_bytes([footer[20], footer[21], footer[22], footer[23]]);
        let header = if flags & 0x8000_0000 != 0 { 32 } else { 0 };
        if let Some(start) = end.checked_sub(size + header)
            && start >= at
        {
            end = start;
        }
    }
    if end < len {
        edits.push(Edit::Truncate { len: end });
    }
    edits
}

/// The boxes of an MP4 file whose contents are metadata become `free` boxes.
fn mp4_edits(len: u64, read: &mut dyn FnMut(u64, usize) -> Option<Vec<u8>>) -> Vec<Edit> {
    /// XMP's box: `uuid` with this user type.
    const XMP_UUID: [u8; 16] = [
        0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF,
        0xAC,
    ];
    let mut edits = Vec::new();
    // boxes visited at most: a file of nothing but tiny boxes costs bounded reads
    let mut budget = 10_000_u32;
    // (from, to, depth) of the box lists still to walk: the file, then `moov` and `trak`
    let mut lists = vec![(0_u64, len, 0_u8)];
    while let Some((mut at, end, depth)) = lists.pop() {
        while at.saturating_add(8) <= end && budget > 0 {
            budget -= 1;
            let Some(header) = read(at, 16).filter(|h| h.len() >= 8) else {
                return edits;
            };
            let size32 = u64::from(u32::from_be_bytes([
                header[0], header[1], header[2], header[3],
            ]));
            let kind: [u8; 4] = [header[4], header[5], header[6], header[7]];
            let (size, header_len) = match size32 {
                // to the end of its list
                0 => (end - at, 8),
                1 if header.len() >= 16 => (
                    u64::from_be_bytes([
                        header[8], header[9], header[10], header[11], header[12], header[13],
                        header[14], header[15],
                    ]),
                    16,
                ),
                1 => return edits,
                n => (n, 8),
            };
            if size < header_len || at.saturating_add(size) > end {
                return edits;
            }
            let metadata = match &kind {
                b"udta" | b"meta" => true,
                b"uuid" => read(at + header_len, 16).is_some_and(|u| u == XMP_UUID),
                _ => false,
            };
            if metadata {
                edits.push(Edit::Write {
                    at: at + 4,
                    bytes: b"free".to_vec(),
                });
                edits.push(Edit::Zero {
                    at: at + header_len,
                    len: size - header_len,
                });
            } else if matches!(&kind, b"moov" | b"trak") && depth < 2 {
                lists.push((at + header_len, at + size, depth + 1));
            }
            at += size;
        }
    }
    edits
}

/// Applies `edits` to bytes in memory.
pub fn apply(bytes: &mut Vec<u8>, edits: &[Edit]) {
    for edit in edits {
        match edit {
            Edit::Write { at, bytes: new } => {
                let at = *at as usize;
                if let Some(place) = bytes.get_mut(at..at + new.len()) {
                    place.copy_from_slice(new);
                }
            }
            Edit::Zero { at, len } => {
                let end = (at.saturating_add(*len) as usize).min(bytes.len());
                if let Some(place) = bytes.get_mut(*at as usize..end) {
                    place.fill(0);
                }
            }
            Edit::Truncate { len } => bytes.truncate(*len as usize),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        out.extend_from_slice(&[1, 2, 3, 4]);
    }

    fn read_from(bytes: &[u8]) -> impl FnMut(u64, usize) -> Option<Vec<u8>> + '_ {
        move |at, n| {
            let at = usize::try_from(at).ok()?;
            bytes.get(at..(at + n).min(bytes.len())).map(<[u8]>::to_vec)
        }
    }

    #[test]
    fn a_png_keeps_its_picture_and_loses_its_text_and_exif() {
        let mut png = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
        png_chunk(&mut png, b"IHDR", &[0; 13]);
        png_chunk(&mut png, b"eXIf", b"GPSLatitude 31.2304N");
        png_chunk(&mut png, b"tEXt", b"Author\0someone");
        png_chunk(
            &mut png,
            b"iTXt",
            b"XML:com.adobe.xmp\0\0\0\0\0<x:xmpmeta/>",
        );
        png_chunk(&mut png, b"zTXt", b"Comment\0\0x");
        png_chunk(&mut png, b"gAMA", &[0, 0, 0xB1, 0x8F]);
        png_chunk(&mut png, b"IDAT", &[7; 20]);
        png_chunk(&mut png, b"tIME", &[7; 7]);
        png_chunk(&mut png, b"IEND", &[]);
        let stripped = strip_png(&png).unwrap();
        let text = String::from_utf8_lossy(&stripped);
        for gone in [
            "eXIf", "GPS", "tEXt", "someone", "iTXt", "xmp", "zTXt", "tIME",
        ] {
            assert!(!text.contains(gone), "{gone}");
        }
        for kept in ["IHDR", "gAMA", "IDAT", "IEND"] {
            assert!(text.contains(kept), "{kept}");
        }
        let mut expected = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
        png_chunk(&mut expected, b"IHDR", &[0; 13]);
        png_chunk(&mut expected, b"gAMA", &[0, 0, 0xB1, 0x8F]);
        png_chunk(&mut expected, b"IDAT", &[7; 20]);
        png_chunk(&mut expected, b"IEND", &[]);
        assert_eq!(stripped, expected);
        // cut short: refused
        assert_eq!(strip_png(&png[..png.len() - 5]), None);
    }

    fn webp(chunks: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
        let mut out = b"RIFF\0\0\0\0WEBP".to_vec();
        for (kind, data) in chunks {
            out.extend_from_slice(*kind);
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(data);
            if data.len() % 2 == 1 {
                out.push(0);
            }
        }
        let len = (out.len() - 8) as u32;
        out[4..8].copy_from_slice(&len.to_le_bytes());
        out
    }

    #[test]
    fn a_webp_loses_exif_and_xmp_and_their_flags() {
        let vp8x = [0x08 | 0x04 | 0x10, 0, 0, 0, 1, 0, 0, 1, 0, 0];
        let file = webp(&[
            (b"VP8X", &vp8x),
            (b"ALPH", b"a"),
            (b"VP8 ", b"picture"),
            (b"EXIF", b"GPS 31N"),
            (b"XMP ", b"<x:xmpmeta/>"),
        ]);
        let stripped = strip_webp(&file).unwrap();
        assert_eq!(
            stripped,
            webp(&[
                (b"VP8X", &[0x10, 0, 0, 0, 1, 0, 0, 1, 0, 0]),
                (b"ALPH", b"a"),
                (b"VP8 ", b"picture")
            ])
        );
        assert_eq!(strip_webp(b"RIFF\0\0\0\0WAVE"), None);
    }

    #[test]
    fn an_mp3_keeps_its_frames_and_loses_its_tags() {
        // ID3v2 with a cover and a title, two MPEG frames, an APEv2 tag, an ID3v1 tag
        let mut mp3 = b"ID3\x04\x00\x40".to_vec();
        let body = b"TIT2\0\0\0\x05\0\0\x03Song-APIC-cover-art";
        mp3.extend_from_slice(&[0, 0, 0, body.len() as u8]);
        mp3.extend_from_slice(body);
        let audio_at = mp3.len();
        mp3.extend_from_slice(&[0xFF, 0xFB, 0x90, 0x64, 1, 2, 3, 4]);
        let audio_end = mp3.len();
        let items = b"\x05\0\0\0\0\0\0\0Title\0Ape";
        mp3.extend_from_slice(items);
        let mut footer = b"APETAGEX".to_vec();
        footer.extend_from_slice(&2000_u32.to_le_bytes());
        footer.extend_from_slice(&((items.len() + 32) as u32).to_le_bytes());
        footer.extend_from_slice(&1_u32.to_le_bytes());
        footer.extend_from_slice(&0_u32.to_le_bytes());
        footer.extend_from_slice(&[0; 8]);
        mp3.extend_from_slice(&footer);
        let mut v1 = b"TAGTitle".to_vec();
        v1.resize(128, b' ');
        mp3.extend_from_slice(&v1);
        let edits = edits(
            Container::Id3,
            mp3.len() as u64,
            &mut read_from(&mp3.clone()),
        );
        let mut stripped = mp3.clone();
        apply(&mut stripped, &edits);
        assert_eq!(stripped.len(), audio_end);
        assert_eq!(&stripped[..6], b"ID3\x04\x00\x00");
        assert!(stripped[10..audio_at].iter().all(|b| *b == 0));
        assert_eq!(&stripped[audio_at..], &mp3[audio_at..audio_end]);
        // no tag: nothing to do
        let bare = [0xFF, 0xFB, 0x90, 0x64, 1, 2];
        assert!(edits_of(Container::Id3, &bare).is_empty());
    }

    fn edits_of(format: Container, bytes: &[u8]) -> Vec<Edit> {
        edits(format, bytes.len() as u64, &mut read_from(bytes))
    }

    fn mp4_box(kind: &[u8; 4], body: &[u8]) -> Vec<u8> {
        let mut out = ((body.len() + 8) as u32).to_be_bytes().to_vec();
        out.extend_from_slice(kind);
        out.extend_from_slice(body);
        out
    }

    #[test]
    fn an_mp4_keeps_its_offsets_and_loses_its_user_data() {
        let location = mp4_box(b"udta", &mp4_box(b"\xA9xyz", b"+31.2304+121.4737/"));
        let tags = mp4_box(b"meta", b"\0\0\0\0ilst-cover-art");
        let trak = mp4_box(
            b"trak",
            &[mp4_box(b"tkhd", &[1; 12]), mp4_box(b"udta", b"name")].concat(),
        );
        let moov = mp4_box(
            b"moov",
            &[mp4_box(b"mvhd", &[2; 12]), trak, location, tags].concat(),
        );
        let mut xmp_body = vec![
            0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3,
            0xAF, 0xAC,
        ];
        xmp_body.extend_from_slice(b"<x:xmpmeta/>");
        let file = [
            mp4_box(b"ftyp", b"isom\0\0\0\0"),
            moov,
            mp4_box(b"uuid", &xmp_body),
            mp4_box(b"mdat", &[9; 32]),
        ]
        .concat();
        let mut stripped = file.clone();
        apply(&mut stripped, &edits_of(Container::IsoBoxes, &file));
        assert_eq!(stripped.len(), file.len(), "nothing moves");
        let text = String::from_utf8_lossy(&stripped);
        for gone in [
            "udta", "xyz", "+31.2304", "ilst", "cover", "name", "xmpmeta",
        ] {
            assert!(!text.contains(gone), "{gone}");
        }
        for kept in ["ftyp", "moov", "mvhd", "trak", "tkhd", "mdat"] {
            assert!(text.contains(kept), "{kept}");
        }
        assert_eq!(text.matches("free").count(), 4);
        assert!(stripped.ends_with(&[9; 32]));
        // a box that claims more than the file holds stops the walk, harmlessly
        let mut broken = file.clone();
        broken[8 + 3] = 0xFF;
        broken[8] = 0x7F;
        let _ = edits_of(Container::IsoBoxes, &broken);
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_are_walked_without_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..512)) {
            for format in [Container::Id3, Container::IsoBoxes, Container::Other] {
                let mut copy = bytes.clone();
                apply(&mut copy, &edits_of(format, &bytes));
                proptest::prop_assert!(copy.len() <= bytes.len());
            }
            let _ = strip_png(&bytes);
            let _ = strip_webp(&bytes);
        }
    }
}
