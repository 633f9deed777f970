//! The demo's image track, "Flags of the World": twelve national flags drawn here as
//! PNG files when the demo loads (no picture is kept in the repository), each with the
//! alternative text a screen reader says, which describes the flag without naming it.

/// A colour, 8 bits a channel.
pub type Rgb = [u8; 3];

const WHITE: Rgb = [255, 255, 255];

/// How a flag is laid out.
#[derive(Clone, Copy, Debug)]
pub enum Pattern {
    /// Equal bands, from the hoist (vertical) or the top (horizontal).
    Bands {
        vertical: bool,
        colors: &'static [Rgb],
    },
    /// A disc on a field; its diameter is `diameter` of the flag's height.
    Disc {
        field: Rgb,
        disc: Rgb,
        diameter: (u32, u32),
    },
    /// A cross whose upright is set towards the hoist: the upright spans `upright`
    /// (start, end) of `of.0` units of width, the bar `bar` of `of.1` units of height.
    NordicCross {
        field: Rgb,
        cross: Rgb,
        upright: (u32, u32),
        bar: (u32, u32),
        of: (u32, u32),
    },
    /// The Swiss cross: on a square of 32 units, arms 6 wide reaching 6 units from the
    /// edge.
    CentredCross { field: Rgb, cross: Rgb },
}

/// One flag of the track.
#[derive(Clone, Copy, Debug)]
pub struct Flag {
    pub country: &'static str,
    pub width: u32,
    pub height: u32,
    pub pattern: Pattern,
    /// What a screen reader says (the flag described, the country not named).
    pub alt: &'static str,
    pub distractors: [&'static str; 3],
    pub difficulty: i64,
    pub card_title: &'static str,
    pub card_summary: &'static str,
    pub card_deep_dive: &'static str,
}

/// `num / den` of `total`, rounded down.
fn part(total: u32, num: u32, den: u32) -> u32 {
    total * num / den
}

impl Pattern {
    /// The colour of pixel (`x`, `y`) of a `w` × `h` flag.
    pub fn color_at(&self, x: u32, y: u32, w: u32, h: u32) -> Rgb {
        match *self {
            Pattern::Bands { vertical, colors } => {
                let n = u32::try_from(colors.len()).unwrap_or(1).max(1);
                let (pos, len) = if vertical { (x, w) } else { (y, h) };
                let band = (pos * n / len.max(1)).min(n - 1);
                colors[band as usize]
            }
            Pattern::Disc {
                field,
                disc,
                diameter,
            } => {
                // compare doubled coordinates of pixel centres: no rounding, no floats
                let (cx, cy) = (i64::from(w), i64::from(h));
                let (px, py) = (2 * i64::from(x) + 1, 2 * i64::from(y) + 1);
                let r = i64::from(h * diameter.0 / diameter.1);
                let (dx, dy) = (px - cx, py - cy);
                if dx * dx + dy * dy <= r * r {
                    disc
                } else {
                    field
                }
            }
            Pattern::NordicCross {
                field,
                cross,
                upright,
                bar,
                of,
            } => {
                let in_upright = (part(w, upright.0, of.0)..part(w, upright.1, of.0)).contains(&x);
                let in_bar = (part(h, bar.0, of.1)..part(h, bar.1, of.1)).contains(&y);
                if in_upright || in_bar { cross } else { field }
            }
            Pattern::CentredCross { field, cross } => {
                let inside = |v: u32, total: u32, from: u32, to: u32| {
                    (part(total, from, 32)..part(total, to, 32)).contains(&v)
                };
                let upright = inside(x, w, 13, 19) && inside(y, h, 6, 26);
                let bar = inside(y, h, 13, 19) && inside(x, w, 6, 26);
                if upright || bar { cross } else { field }
            }
        }
    }
}

impl Flag {
    /// The flag as RGB pixels, row by row.
    pub fn pixels(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity((self.width * self.height * 3) as usize);
        for y in 0..self.height {
            for x in 0..self.width {
                out.extend_from_slice(&self.pattern.color_at(x, y, self.width, self.height));
            }
        }
        out
    }

    /// The flag as a PNG file.
    pub fn png(&self) -> Result<Vec<u8>, png::EncodingError> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, self.width, self.height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&self.pixels())?;
        writer.finish()?;
        Ok(out)
    }
}

const fn bands(vertical: bool, colors: &'static [Rgb]) -> Pattern {
    Pattern::Bands { vertical, colors }
}

/// The track's category.
pub const CATEGORY_ID: &str = "world-flags";
pub const CATEGORY_NAME: &str = "Flags of the World";
/// After the three English and two Chinese tracks.
pub const CATEGORY_SORT_ORDER: i64 = 6;
/// Its chapters.
pub const CHAPTERS: [&str; 2] = ["Stripes and bands", "Crosses and discs"];
/// Every question asks this; the picture differs.
pub const STEM: &str = "Which country's flag is this?";

/// The twelve flags (colours as the countries publish them, in sRGB).
pub const FLAGS: [Flag; 12] = [
    Flag {
        country: "France",
        width: 300,
        height: 200,
        pattern: bands(true, &[[0, 0, 145], WHITE, [225, 0, 15]]),
        alt: "A flag of three equal vertical bands: blue, white and red.",
        distractors: ["Netherlands", "Russia", "Italy"],
        difficulty: 1,
        card_title: "The Tricolore",
        card_summary: "France's flag is three vertical bands of blue, white and red, the colours of the Revolution.",
        card_deep_dive: "Blue and red were the colours of Paris and white the colour of the monarchy; together they made the cockade of the Revolution of 1789. The vertical tricolour became the national flag in 1794 and, apart from the years of the Restoration, has flown ever since.",
    },
    Flag {
        country: "Italy",
        width: 300,
        height: 200,
        pattern: bands(true, &[[0, 146, 70], [241, 242, 241], [206, 43, 55]]),
        alt: "A flag of three equal vertical bands: green, white and red.",
        distractors: ["Ireland", "Mexico", "Hungary"],
        difficulty: 2,
        card_title: "Il Tricolore",
        card_summary: "Italy's green, white and red tricolour was first adopted in 1797, on the model of the French flag.",
        card_deep_dive: "The Cispadane Republic adopted the tricolour in 1797. The Kingdom of Italy flew it with the arms of the House of Savoy in the centre; the plain tricolour has been the flag of the Italian Republic since 1946.",
    },
    Flag {
        country: "Germany",
        width: 300,
        height: 180,
        pattern: bands(false, &[[0, 0, 0], [221, 0, 0], [255, 206, 0]]),
        alt: "A flag of three equal horizontal bands: black, red and gold.",
        distractors: ["Belgium", "Austria", "Lithuania"],
        difficulty: 1,
        card_title: "Black, red and gold",
        card_summary: "Germany's colours go back to the wars against Napoleon and the liberal movement of 1848.",
        card_deep_dive: "The Lützow Free Corps wore black uniforms with red facings and gold buttons; the colours became those of the movement for a united, liberal Germany in 1848. They were the flag of the Weimar Republic, West Germany took them up again in 1949, and since 1990 they fly over reunified Germany.",
    },
    Flag {
        country: "Belgium",
        width: 300,
        height: 200,
        pattern: bands(true, &[[0, 0, 0], [253, 218, 36], [239, 51, 64]]),
        alt: "A flag of three equal vertical bands: black, yellow and red.",
        distractors: ["Germany", "Romania", "France"],
        difficulty: 3,
        card_title: "The colours of Brabant",
        card_summary: "Belgium's black, yellow and red come from the arms of the Duchy of Brabant.",
        card_deep_dive: "The colours were worn in the revolution of 1830 that led to Belgium's independence; in 1831 the bands were set vertically, on the French model, and the flag has kept that form since.",
    },
    Flag {
        country: "Ireland",
        width: 300,
        height: 150,
        pattern: bands(true, &[[22, 155, 98], WHITE, [255, 136, 62]]),
        alt: "A flag of three equal vertical bands: green, white and orange.",
        distractors: ["Italy", "Côte d'Ivoire", "India"],
        difficulty: 3,
        card_title: "Green, white and orange",
        card_summary: "Green for the Gaelic tradition, orange for the followers of William of Orange, white for peace between them.",
        card_deep_dive: "Thomas Francis Meagher first flew the tricolour in 1848. It was raised over the General Post Office in the Easter Rising of 1916, and the Constitution of 1937 confirmed it as the national flag. Côte d'Ivoire's flag has the same colours in the opposite order.",
    },
    Flag {
        country: "Netherlands",
        width: 300,
        height: 200,
        pattern: bands(false, &[[174, 28, 40], WHITE, [33, 70, 139]]),
        alt: "A flag of three equal horizontal bands: red, white and blue.",
        distractors: ["France", "Luxembourg", "Russia"],
        difficulty: 3,
        card_title: "One of the oldest tricolours",
        card_summary: "The Dutch flag descends from the orange, white and blue Prince's Flag of William of Orange.",
        card_deep_dive: "The Prince's Flag flew in the Dutch revolt against Spain in the 16th century. During the 17th century red took the place of orange, perhaps because orange dye faded; the red, white and blue flag was made official in 1937.",
    },
    Flag {
        country: "Austria",
        width: 300,
        height: 200,
        pattern: bands(false, &[[200, 16, 46], WHITE, [200, 16, 46]]),
        alt: "A flag of three equal horizontal bands: red, white and red.",
        distractors: ["Latvia", "Poland", "Denmark"],
        difficulty: 3,
        card_title: "Red-white-red",
        card_summary: "Austria's red-white-red is among the oldest national colours still in use, from the 13th century.",
        card_deep_dive: "The Babenberg dukes bore a white band on red in the 13th century. A legend tells that Duke Leopold V's white surcoat was soaked in blood at the siege of Acre except where his belt had been.",
    },
    Flag {
        country: "Ukraine",
        width: 300,
        height: 200,
        pattern: bands(false, &[[0, 87, 183], [255, 215, 0]]),
        alt: "A flag of two equal horizontal bands: blue above yellow.",
        distractors: ["Sweden", "Kazakhstan", "Poland"],
        difficulty: 2,
        card_title: "Blue over yellow",
        card_summary: "Ukraine's flag is often read as a blue sky over fields of wheat.",
        card_deep_dive: "Blue and yellow go back to the arms of medieval Galicia-Volhynia and were raised in 1848 in Lviv. The flag was officially adopted on 28 January 1992, after independence.",
    },
    Flag {
        country: "Japan",
        width: 300,
        height: 200,
        pattern: Pattern::Disc {
            field: WHITE,
            disc: [188, 0, 45],
            diameter: (3, 5),
        },
        alt: "A white flag with a red disc in the centre.",
        distractors: ["Bangladesh", "South Korea", "China"],
        difficulty: 1,
        card_title: "The circle of the sun",
        card_summary: "Japan's flag, the Nisshōki or Hinomaru, shows the sun as a red disc on white.",
        card_deep_dive: "The sun disc has been used on banners in Japan for centuries; the flag was made the national flag by law in 1999. The disc's diameter is three fifths of the flag's height.",
    },
    Flag {
        country: "Sweden",
        width: 320,
        height: 200,
        pattern: Pattern::NordicCross {
            field: [0, 106, 167],
            cross: [254, 204, 2],
            upright: (5, 7),
            bar: (4, 6),
            of: (16, 10),
        },
        alt: "A blue flag with a yellow cross whose upright stands nearer the hoist.",
        distractors: ["Finland", "Norway", "Denmark"],
        difficulty: 2,
        card_title: "A Nordic cross",
        card_summary: "Sweden's yellow cross on blue takes its colours from the Swedish coat of arms.",
        card_deep_dive: "Like every Nordic cross, the upright is set towards the hoist. Sweden celebrates its flag on 6 June, its national day, which was long called Swedish Flag Day.",
    },
    Flag {
        country: "Denmark",
        width: 370,
        height: 280,
        pattern: Pattern::NordicCross {
            field: [200, 16, 46],
            cross: WHITE,
            upright: (12, 16),
            bar: (12, 16),
            of: (37, 28),
        },
        alt: "A red flag with a white cross whose upright stands nearer the hoist.",
        distractors: ["Switzerland", "Norway", "Sweden"],
        difficulty: 2,
        card_title: "The Dannebrog",
        card_summary: "Denmark's flag is held to be the oldest national flag in continuous use.",
        card_deep_dive: "Legend says the Dannebrog fell from the sky during a battle in Estonia in 1219. Its cross set towards the hoist became the model for the flags of Sweden, Norway, Finland and Iceland.",
    },
    Flag {
        country: "Switzerland",
        width: 200,
        height: 200,
        pattern: Pattern::CentredCross {
            field: [218, 41, 28],
            cross: WHITE,
        },
        alt: "A square red flag with a white cross in the centre.",
        distractors: ["Denmark", "Austria", "Georgia"],
        difficulty: 1,
        card_title: "A square flag",
        card_summary: "Switzerland's flag is square, one of only two square national flags with Vatican City's.",
        card_deep_dive: "The white cross on red comes from the banner of the canton of Schwyz, one of the founding cantons of the Confederation. The arms of the cross are one sixth longer than they are wide.",
    },
];

/// Where the cards' facts can be checked.
pub fn source_of(flag: &Flag) -> String {
    format!("Encyclopaedia Britannica, 'Flag of {}'", flag.country)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::media::{MediaFormat, sniff};

    fn flag(country: &str) -> Flag {
        FLAGS
            .into_iter()
            .find(|f| f.country == country)
            .unwrap_or_else(|| panic!("{country}"))
    }

    fn at(f: &Flag, x: u32, y: u32) -> Rgb {
        f.pattern.color_at(x, y, f.width, f.height)
    }

    #[test]
    fn bands_split_the_flag_evenly() {
        let france = flag("France");
        assert_eq!(at(&france, 0, 100), [0, 0, 145]);
        assert_eq!(at(&france, 99, 0), [0, 0, 145]);
        assert_eq!(at(&france, 100, 199), WHITE);
        assert_eq!(at(&france, 299, 10), [225, 0, 15]);
        let germany = flag("Germany");
        assert_eq!(at(&germany, 150, 59), [0, 0, 0]);
        assert_eq!(at(&germany, 150, 60), [221, 0, 0]);
        assert_eq!(at(&germany, 150, 179), [255, 206, 0]);
        let ukraine = flag("Ukraine");
        assert_eq!(at(&ukraine, 0, 99), [0, 87, 183]);
        assert_eq!(at(&ukraine, 0, 100), [255, 215, 0]);
    }

    #[test]
    fn the_disc_is_three_fifths_of_the_height() {
        let japan = flag("Japan");
        let red = [188, 0, 45];
        assert_eq!(at(&japan, 150, 100), red);
        assert_eq!(at(&japan, 0, 0), WHITE);
        // radius 60 px: inside just within it, white just past it
        assert_eq!(at(&japan, 150, 41), red);
        assert_eq!(at(&japan, 150, 38), WHITE);
        assert_eq!(at(&japan, 209, 100), red);
        assert_eq!(at(&japan, 211, 100), WHITE);
    }

    #[test]
    fn crosses_sit_where_their_flags_put_them() {
        let sweden = flag("Sweden");
        let (blue, yellow) = ([0, 106, 167], [254, 204, 2]);
        assert_eq!(at(&sweden, 110, 10), yellow); // the upright, 100..140
        assert_eq!(at(&sweden, 10, 90), yellow); // the bar, 80..120
        assert_eq!(at(&sweden, 10, 10), blue);
        assert_eq!(at(&sweden, 200, 150), blue);
        let swiss = flag("Switzerland");
        let red = [218, 41, 28];
        assert_eq!(at(&swiss, 100, 100), WHITE);
        assert_eq!(at(&swiss, 100, 40), WHITE); // the upright's top arm
        assert_eq!(at(&swiss, 100, 30), red); // above it
        assert_eq!(at(&swiss, 40, 40), red); // between the arms
        assert_eq!(at(&swiss, 0, 0), red);
    }

    #[test]
    fn every_flag_is_a_png_the_library_accepts() {
        let mut countries = std::collections::HashSet::new();
        for f in FLAGS {
            let bytes = f.png().unwrap_or_else(|e| panic!("{}: {e}", f.country));
            assert!(
                matches!(sniff(&bytes), Ok(MediaFormat::Png)),
                "{}",
                f.country
            );
            let size = imagesize::blob_size(&bytes).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                (size.width, size.height),
                (f.width as usize, f.height as usize)
            );
            // small enough for any deployment's image limit
            assert!(bytes.len() < 20_000, "{}: {} bytes", f.country, bytes.len());
            // the alternative text describes, never names, and the answer is not a distractor
            assert!(!f.alt.contains(f.country), "{}", f.country);
            assert!(!f.distractors.contains(&f.country), "{}", f.country);
            assert!(countries.insert(f.country), "{} twice", f.country);
            assert!((1..=5).contains(&f.difficulty));
        }
    }
}
