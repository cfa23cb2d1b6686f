//! The bitmap back end with correct text ([`CrispText`]). In its own file: the backend
//! traits it implements would make `stroke_width` ambiguous in the drawing code.

use plotters::prelude::DrawingBackend;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};

/// A bitmap backend whose text is laid out correctly.
///
/// plotters' `ab_glyph` text renderer drops each glyph's left side bearing, so letters sit
/// unevenly ("0 .2", "a long" drawn as "along"). This wrapper delegates everything to the
/// inner backend except text, which it rasterises itself with the same font, size, advance
/// widths and anchor rules (so the layout sizes plotters estimates stay right).
pub(super) struct CrispText<B> {
    inner: B,
    regular: ab_glyph::FontRef<'static>,
    bold: ab_glyph::FontRef<'static>,
}

impl<B> CrispText<B> {
    /// `inner` with its text drawn by this wrapper, in the bundled DejaVu Sans.
    pub(super) fn new(inner: B) -> Self {
        // The bundled fonts parse (checked by `init`, which `save` calls first).
        let load = |bytes| ab_glyph::FontRef::try_from_slice(bytes).expect("bundled DejaVu Sans");
        Self {
            inner,
            regular: load(dejavu::sans::regular()),
            bold: load(dejavu::sans::bold()),
        }
    }
}

impl<B: DrawingBackend> DrawingBackend for CrispText<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> std::result::Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> std::result::Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.present()
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> std::result::Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> std::result::Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> std::result::Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> std::result::Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> std::result::Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> std::result::Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.fill_polygon(vert, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> std::result::Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.blit_bitmap(pos, size, src)
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> std::result::Result<(), DrawingErrorKind<B::ErrorType>> {
        use ab_glyph::{Font, ScaleFont};
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let font = match style.style() {
            plotters_backend::FontStyle::Bold => &self.bold,
            _ => &self.regular,
        };
        // The same scale, advances and box height as plotters' layout estimate.
        let size = style.size();
        let scaled = font.as_scaled(size as f32);
        let mut caret = 0.0f32;
        let mut prev = None;
        let mut glyphs = Vec::with_capacity(text.len());
        for c in text.chars() {
            let id = scaled.glyph_id(c);
            if let Some(p) = prev {
                caret += scaled.kern(p, id);
            }
            glyphs.push(
                id.with_scale_and_position(scaled.scale(), ab_glyph::point(caret, scaled.ascent())),
            );
            caret += scaled.h_advance(id);
            prev = Some(id);
        }
        let (width, height) = (caret as i32, (size / 1.24) as i32);
        let anchor = style.anchor();
        let dx = match anchor.h_pos {
            plotters_backend::text_anchor::HPos::Left => 0,
            plotters_backend::text_anchor::HPos::Right => -width,
            plotters_backend::text_anchor::HPos::Center => -width / 2,
        };
        let dy = match anchor.v_pos {
            plotters_backend::text_anchor::VPos::Top => 0,
            plotters_backend::text_anchor::VPos::Center => -height / 2,
            plotters_backend::text_anchor::VPos::Bottom => -height,
        };
        let transform = style.transform();
        let (w, h) = self.get_size();
        let mut pixels = Vec::new();
        for glyph in glyphs {
            if let Some(outline) = font.outline_glyph(glyph) {
                let bounds = outline.px_bounds();
                let (x0, y0) = (bounds.min.x as i32, bounds.min.y as i32);
                outline.draw(|x, y, coverage| {
                    if coverage > 0.0 {
                        pixels.push((x0 + x as i32 + dx, y0 + y as i32 + dy, coverage));
                    }
                });
            }
        }
        for (x, y, coverage) in pixels {
            let (x, y) = transform.transform(x, y);
            let (x, y) = (pos.0 + x, pos.1 + y);
            if x >= 0 && x < w as i32 && y >= 0 && y < h as i32 {
                let alpha = color.alpha * f64::from(coverage.min(1.0));
                self.inner.draw_pixel(
                    (x, y),
                    BackendColor {
                        alpha,
                        rgb: color.rgb,
                    },
                )?;
            }
        }
        Ok(())
    }
}
