//! Output formats: an SVG or PNG file chosen by extension, and the font that
//! PNG text needs.
//!
//! PNG text is rasterized with `ab_glyph` (pure Rust) from a TrueType font
//! read at run time: `$IMPACTSET_FONT` if set (`none`: no font), else the first of
//! [`FONT_CANDIDATES`] that exists (Debian: `fonts-dejavu-core`). SVG needs no
//! font at all: text goes into `<text>` elements for the viewer to render,
//! and the layout uses the font's metrics when one was found, a fixed-width
//! estimate otherwise.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind};

/// What can go wrong when drawing a figure.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The file name does not end in `.svg` or `.png`.
    #[error("cannot tell the figure format of {0}: use a .svg or .png file name")]
    UnknownFormat(PathBuf),
    /// A PNG was asked for and no TrueType font was found.
    #[error(
        "no font for PNG text: set IMPACTSET_FONT to a .ttf file or install fonts-dejavu-core (looked in {searched}); \
         SVG output needs no font"
    )]
    NoFont {
        /// The paths tried, comma-separated.
        searched: String,
    },
    /// Nothing to draw.
    #[error("nothing to plot: {0}")]
    Empty(String),
    /// The drawing library failed.
    #[error("drawing {path}: {message}")]
    Draw {
        /// The output file.
        path: PathBuf,
        /// The library's message.
        message: String,
    },
    /// Writing the file failed.
    #[error("writing {path}: {source}")]
    Io {
        /// The output file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// A figure format, from the file extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Scalable vector graphics (`.svg`), no font needed.
    Svg,
    /// A bitmap (`.png`), needs a TrueType font.
    Png,
}

impl Format {
    /// The format of `path` from its extension (case-insensitive).
    pub fn of(path: &Path) -> Result<Format, PlotError> {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("svg") => Ok(Format::Svg),
            Some("png") => Ok(Format::Png),
            _ => Err(PlotError::UnknownFormat(path.to_path_buf())),
        }
    }
}

/// Where fonts are looked for, in order, after `$IMPACTSET_FONT`.
pub const FONT_CANDIDATES: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
    "/Library/Fonts/Arial.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

/// The font family every figure uses; the loaded font is registered under it.
pub(crate) const FAMILY: &str = "sans-serif";

/// Loads and registers the figure font once; `Some(path)` of the font used.
/// `IMPACTSET_FONT=none` uses no font (SVG only; PNG then fails).
pub fn figure_font() -> Option<&'static Path> {
    static FONT: OnceLock<Option<PathBuf>> = OnceLock::new();
    FONT.get_or_init(|| {
        let env = std::env::var_os("IMPACTSET_FONT").map(PathBuf::from);
        if env.as_deref() == Some(Path::new("none")) {
            return None;
        }
        let candidates = env.into_iter().chain(FONT_CANDIDATES.iter().map(PathBuf::from));
        for path in candidates {
            let Ok(bytes) = std::fs::read(&path) else { continue };
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            if plotters::style::register_font(FAMILY, FontStyle::Normal, bytes).is_ok() {
                return Some(path);
            }
        }
        None
    })
    .as_deref()
}

/// A figure that can draw itself on any plotters backend.
pub(crate) trait Figure {
    /// Pixel size `(width, height)`.
    fn size(&self) -> (u32, u32);
    /// Draws onto `root` (already sized).
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String>;
}

/// Draws `figure` into `path`, SVG or PNG by extension.
pub(crate) fn render(path: &Path, figure: &impl Figure) -> Result<(), PlotError> {
    let format = Format::of(path)?;
    let font = figure_font();
    let draw_error = |message: String| PlotError::Draw { path: path.to_path_buf(), message };
    match format {
        Format::Svg => {
            let mut svg = String::new();
            {
                let root = FontFreeSvg(SVGBackend::with_string(&mut svg, figure.size())).into_drawing_area();
                figure.draw(&root).map_err(draw_error)?;
                root.present().map_err(|e| draw_error(e.to_string()))?;
            }
            std::fs::write(path, svg).map_err(|source| PlotError::Io { path: path.to_path_buf(), source })
        }
        Format::Png => {
            if font.is_none() {
                let searched = std::iter::once("$IMPACTSET_FONT").chain(FONT_CANDIDATES.iter().copied());
                return Err(PlotError::NoFont { searched: searched.collect::<Vec<_>>().join(", ") });
            }
            let root = BitMapBackend::new(path, figure.size()).into_drawing_area();
            figure.draw(&root).map_err(draw_error)?;
            root.present().map_err(|e| draw_error(e.to_string()))
        }
    }
}

/// plotters' SVG backend with a text-size estimate that works without any
/// font: the SVG backend itself only needs sizes to lay out labels.
struct FontFreeSvg<'a>(SVGBackend<'a>);

type SvgResult<T> = Result<T, DrawingErrorKind<<SVGBackend<'static> as DrawingBackend>::ErrorType>>;

impl DrawingBackend for FontFreeSvg<'_> {
    type ErrorType = <SVGBackend<'static> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }
    fn ensure_prepared(&mut self) -> SvgResult<()> {
        self.0.ensure_prepared()
    }
    fn present(&mut self) -> SvgResult<()> {
        self.0.present()
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> SvgResult<()> {
        self.0.draw_pixel(point, color)
    }
    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> SvgResult<()> {
        self.0.draw_line(from, to, style)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        ul: BackendCoord,
        br: BackendCoord,
        style: &S,
        fill: bool,
    ) -> SvgResult<()> {
        self.0.draw_rect(ul, br, style, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> SvgResult<()> {
        self.0.draw_path(path, style)
    }
    fn draw_circle<S: BackendStyle>(&mut self, c: BackendCoord, r: u32, style: &S, fill: bool) -> SvgResult<()> {
        self.0.draw_circle(c, r, style, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        v: I,
        style: &S,
    ) -> SvgResult<()> {
        self.0.fill_polygon(v, style)
    }
    fn draw_text<T: BackendTextStyle>(&mut self, text: &str, style: &T, pos: BackendCoord) -> SvgResult<()> {
        self.0.draw_text(text, style, pos)
    }
    fn estimate_text_size<T: BackendTextStyle>(&self, text: &str, style: &T) -> SvgResult<(u32, u32)> {
        match style.layout_box(text) {
            Ok(((x0, y0), (x1, y1))) => Ok(((x1 - x0).max(0) as u32, (y1 - y0).max(0) as u32)),
            // A sans-serif glyph is about 0.55 em wide on average.
            Err(_) => Ok(((0.55 * style.size() * text.chars().count() as f64) as u32, style.size() as u32)),
        }
    }
    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> SvgResult<()> {
        self.0.blit_bitmap(pos, size, src)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_extension() {
        assert_eq!(Format::of(Path::new("a/b.SVG")).unwrap(), Format::Svg);
        assert_eq!(Format::of(Path::new("b.png")).unwrap(), Format::Png);
        assert!(matches!(Format::of(Path::new("b.pdf")), Err(PlotError::UnknownFormat(_))));
        assert!(Format::of(Path::new("noext")).is_err());
    }
}
