//! Every probability and strength synth uses, in one serde config with documented defaults.
//! `synth --config FILE.json` reads it (unknown fields are an error); flags override a few.

use serde::{Deserialize, Serialize};

use super::positions::PositionMix;

/// A random effect: applied with `probability`, at a strength drawn up to `strength`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Effect {
    /// Chance of applying the effect to an image, 0..=1.
    pub probability: f64,
    /// Largest strength (units depend on the effect; see [`DegradeConfig`]).
    pub strength: f32,
}

const fn effect(probability: f64, strength: f32) -> Effect {
    Effect {
        probability,
        strength,
    }
}

/// Overlays drawn on the board (probabilities per board).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OverlayConfig {
    /// Last-move highlight on two squares. Default 0.5.
    pub last_move: f64,
    /// 1-4 coloured square marks. Default 0.15.
    pub marks: f64,
    /// Red glow under a king. Default 0.1.
    pub check_glow: f64,
    /// Legal-move dots and rings. Default 0.1.
    pub move_dots: f64,
    /// 1-3 circles. Default 0.1.
    pub circles: f64,
    /// 1-4 arrows, straight or knight-shaped, crossing pieces. Default 0.25.
    pub arrows: f64,
    /// 1-3 frames inside a square's edge, sharp or a soft inset glow (chessboard.js's
    /// highlight, cm-chessboard's frame marker, chess.com's hover square). Default 0: kept
    /// off so the seeded validation and board sets stay as they were; training turns it on.
    pub frames: f64,
    /// 1-6 dot markers of other widgets' colours and sizes, on any square. Default 0, as
    /// `frames`.
    pub dots: f64,
    /// 1-3 X marks across squares (python-chess's marked squares, a book's crossed-out
    /// square), over any piece. Default 0, as `frames`.
    pub crosses: f64,
    /// A move just played, highlighted as apps do: its two squares (the one it left, empty,
    /// and the man's square now) tinted in one app colour, and written to the board's label
    /// (`last_move`). Default 0, as `frames`; the `moves` board set measures
    /// [`crate::last_move`] with it.
    pub played_move: f64,
    /// 1-3 thin opaque arrows with small heads, as books and annotation tools draw them
    /// (LaTeX's `chessboard`, printed exports), over any piece. Default 0, as `frames`.
    pub book_arrows: f64,
    /// 1-4 letters, digits or signs on empty squares, as annotators label squares
    /// (kokopu-react's text markers, a book's "a", "b" squares). Default 0, as `frames`.
    pub square_letters: f64,
    /// A dialog drawn over the board (a game-over card, a pop-up): an opaque panel a third
    /// to three quarters of the board across, with a title and a button, hiding the men
    /// beneath (their labels still say what stands there). Default 0, as `frames`.
    pub dialog: f64,
}

impl OverlayConfig {
    /// No overlays at all (clean diagrams, tests).
    pub const NONE: OverlayConfig = OverlayConfig {
        last_move: 0.0,
        marks: 0.0,
        check_glow: 0.0,
        move_dots: 0.0,
        circles: 0.0,
        arrows: 0.0,
        frames: 0.0,
        dots: 0.0,
        crosses: 0.0,
        played_move: 0.0,
        book_arrows: 0.0,
        square_letters: 0.0,
        dialog: 0.0,
    };
}

impl Default for OverlayConfig {
    fn default() -> Self {
        OverlayConfig {
            last_move: 0.5,
            marks: 0.15,
            check_glow: 0.1,
            move_dots: 0.1,
            circles: 0.1,
            arrows: 0.25,
            frames: 0.0,
            dots: 0.0,
            crosses: 0.0,
            played_move: 0.0,
            book_arrows: 0.0,
            square_letters: 0.0,
            dialog: 0.0,
        }
    }
}

/// How boards look.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LookConfig {
    /// Share of random colour palettes instead of the named themes. Default 0.25.
    pub random_theme: f64,
    /// Extra share of printed-diagram themes (hatched, lined, dotted, grey dark squares) on
    /// top of their place in the named list. Default 0.12.
    pub book_theme: f64,
    /// Share of boards drawn from black's side. Default 0.3.
    pub black_bottom: f64,
    /// Share of boards with coordinates inside the squares. Default 0.4.
    pub coordinates_inside: f64,
    /// Share of boards with coordinates outside the board. Default 0.2.
    pub coordinates_outside: f64,
    /// Smallest piece size relative to a square. Default 0.75 (largest is 1.0).
    pub min_piece_scale: f32,
    /// Share of boards with a frame line (always for book themes). Default 0.2.
    pub frame: f64,
    /// Share of book-theme boards (with 20+ pixels a square) whose pieces get engraved
    /// hatch shading as in old books: dark lines in white pieces, in half of them light
    /// lines in black pieces too. Default 0.3.
    pub shaded_pieces: f64,
    /// Share of boards whose pieces are recoloured (cream, brown, red, blue... duotones of
    /// their lightness; `render::tint`). A training augmentation: default 0, and synth's
    /// output is then the same as without the option.
    pub tinted_pieces: f64,
    /// Share of boards whose pieces are drawn narrower or wider (0.65..1.25) and a little
    /// shorter (`render::restyle`). A training augmentation like `tinted_pieces`: default 0.
    pub stretched_pieces: f64,
    /// Share of boards whose pieces are drawn mirrored left to right (knights facing the
    /// other way, a bishop's cut on the other side; `render::restyle`). A training
    /// augmentation like `tinted_pieces`: default 0.
    pub mirrored_pieces: f64,
    /// Share of book-theme boards whose hatched, lined or dotted dark squares are printed
    /// rough: lines that wander, tilt, vary in weight and break, dots shifted and missing
    /// (worn plates, hand-drawn diagrams, poor scans; `render::hatching`). A training
    /// augmentation like `tinted_pieces`: default 0.
    pub rough_print: f64,
    /// Share of hatched and lined book boards whose dark squares' lines show through the
    /// black pieces on them in paper (an overprinting plate, a scan; `render::hatching`). A training
    /// augmentation like `tinted_pieces`: default 0.
    pub hatch_through: f64,
    /// Share of boards whose black pieces get a thin paper-coloured line just inside their
    /// outline, as many diagram fonts draw them (`render::inner_line`). A training
    /// augmentation like `tinted_pieces`: default 0.
    pub inner_lines: f64,
    /// Share of boards whose black pieces get a small paper mark (triangle, dot or slit) in
    /// the thick lower part of their body, a highlight some fonts draw
    /// (`render::inner_line`). A training augmentation like `tinted_pieces`: default 0.
    pub inner_marks: f64,
    /// Share of boards whose black men are the white men's drawing with a grey body (dark
    /// lines, body at 30-60% of full brightness), as programs that fill one outline in two
    /// colours draw them (XBoard's men, its mid-grey rendering of gradient sets;
    /// `render::restyle`). A training augmentation like `tinted_pieces`: default 0.
    pub grey_black_men: f64,
    /// Share of boards whose pieces' dark lines are drawn heavier (widened 1.2-3.5% of the
    /// piece's size inside its outline: bold fonts and markers; `render::restyle`). A
    /// training augmentation like `tinted_pieces`: default 0.
    pub heavy_lines: f64,
    /// Share of boards whose pieces are bent by one smooth random displacement field of
    /// 2.5-5% of the piece's size (other contours of the same shapes:
    /// `render::piece_warp`). A training augmentation like `tinted_pieces`: default 0.
    pub warped_pieces: f64,
    /// Share of boards whose pieces are drawn smaller in their squares than
    /// `min_piece_scale` allows: 0.5 of a square up to it (sets with wide margins
    /// around slender men, apps with a piece-size setting, 3D renders). A training
    /// augmentation like `tinted_pieces`: default 0.
    pub small_pieces: f64,
}

impl Default for LookConfig {
    fn default() -> Self {
        LookConfig {
            random_theme: 0.25,
            book_theme: 0.12,
            black_bottom: 0.3,
            coordinates_inside: 0.4,
            coordinates_outside: 0.2,
            min_piece_scale: 0.75,
            frame: 0.2,
            shaded_pieces: 0.3,
            tinted_pieces: 0.0,
            stretched_pieces: 0.0,
            mirrored_pieces: 0.0,
            rough_print: 0.0,
            hatch_through: 0.0,
            inner_lines: 0.0,
            inner_marks: 0.0,
            grey_black_men: 0.0,
            heavy_lines: 0.0,
            warped_pieces: 0.0,
            small_pieces: 0.0,
        }
    }
}

/// Where the board sits in the image and how the camera sees it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SceneConfig {
    /// Smallest board side in pixels. Default 100.
    pub min_board: u32,
    /// Largest board side in pixels (sizes are drawn log-uniformly). Default 1600.
    pub max_board: u32,
    /// Share of images cropped to the board (give or take a few pixels). Default 0.35.
    pub cropped: f64,
    /// Smallest share of the image width the board takes in an uncropped image. Default 0.15.
    pub min_board_fraction: f32,
    /// Share of uncropped images with a second, smaller board elsewhere. Default 0.1.
    pub second_board: f64,
    /// In-plane rotation: probability and largest angle in degrees. Default 0.15, 4.
    pub rotation: Effect,
    /// Perspective skew: probability and largest corner displacement as a fraction of the
    /// board side. Default 0.15, 0.25.
    pub perspective: Effect,
    /// Share of pictures turned a quarter, either way, after everything else (a phone photo
    /// without its orientation tag, a page scanned sideways). Default 0.
    pub quarter_turn: f64,
    /// The picture squeezed along its width or its height (an app that squeezes a photo
    /// into a square), after the degradations: probability and the smallest share of the
    /// side kept (0.3-1). Default 0, 0.6.
    pub squash: Effect,
    /// A book's page curling towards its spine beyond one of the board's sides (flat up to
    /// a line across the board, then wrapped round a cylinder, seen from a camera above),
    /// before the camera's angle: probability and the largest angle in degrees the page
    /// turns by at the board's edge (up to 75). Drawn from a stream of its own, so a set
    /// drawn with it shows the same boards as one without. The labels keep the four
    /// corners only: square crops cut through them would miss the bend, so `synth
    /// squares` and `train` refuse it. Default 0, 50.
    pub curl: Effect,
    /// A camera lens's radial distortion (barrel three times in four, else pincushion)
    /// centred on the picture, after the camera's angle: probability and the largest `|k|`
    /// (the picture's corner shows what lay `1 + k` times as far from its centre; up to
    /// 0.3). From the same stream as `curl`, with the same caveat. Default 0, 0.15.
    pub lens: Effect,
    /// Share of uncropped pictures with an app's panels flush against the board (an
    /// evaluation bar beside it, player strips with names, men taken and clocks above and
    /// below; `src/render/panels.rs`), drawn from a stream of their own so that a set drawn
    /// with them shows the same boards as one without. Default 0.
    pub app_panels: f64,
}

impl Default for SceneConfig {
    fn default() -> Self {
        SceneConfig {
            min_board: 100,
            max_board: 1600,
            cropped: 0.35,
            min_board_fraction: 0.15,
            second_board: 0.1,
            rotation: effect(0.15, 4.0),
            perspective: effect(0.15, 0.25),
            quarter_turn: 0.0,
            squash: effect(0.0, 0.6),
            curl: effect(0.0, 50.0),
            lens: effect(0.0, 0.15),
            app_panels: 0.0,
        }
    }
}

/// Image degradations, applied after the scene is composed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DegradeConfig {
    /// Down-then-up scaling; strength = smallest square side in pixels reached (12).
    pub rescale: Effect,
    /// JPEG re-encoding; strength = lowest quality (15). Boards with under 24 pixels of
    /// detail a square get a higher floor (up to +30 at 10 px), as blur and noise get less.
    pub jpeg: Effect,
    /// Gaussian blur; strength = largest sigma in pixels (1.5).
    pub blur: Effect,
    /// Gaussian pixel noise; strength = largest standard deviation in 0..255 units (12).
    pub noise: Effect,
    /// Colour balance, brightness, contrast and gamma shifts; strength = largest relative
    /// change (0.25).
    pub color: Effect,
    /// Uneven lighting and shadow (a smooth gradient); strength = largest darkening (0.5).
    pub lighting: Effect,
    /// Glare (a bright soft ellipse); strength = largest added brightness (0.6).
    pub glare: Effect,
    /// Screen moire (fine interference stripes); strength = amplitude (0.12).
    pub moire: Effect,
    /// Paper texture (low-frequency blotches and grain); strength = amplitude (0.12).
    pub paper: Effect,
    /// Ink spread, as in print: dark strokes thicken (white pieces get heavy outlines);
    /// strength = largest spread as a share of a square (0.02; under a pixel: no effect;
    /// on hatched squares never more than keeps half the paper between the lines).
    pub ink: Effect,
    /// Black-and-white scan of a printed diagram (book themes only): grey, then a hard
    /// threshold (fax, 1-bit scans, photocopies), on boards with 32+ pixels a square;
    /// strength = largest shift of the threshold from mid-grey, in 0..1 units (0.12:
    /// further turns hatched squares solid black or white).
    pub scan: Effect,
    /// Halftone print of a printed diagram (book themes only): grey printed as a screen of
    /// round dots at an angle, as newspapers and many books print (and cheap printers
    /// dither); strength = largest screen period as a share of a square (0.08; the period
    /// is at least 2 pixels).
    pub halftone: Effect,
    /// Unsharp masking, as scanners, phone cameras and image editors apply: light halos
    /// beside dark edges and dark rims beside light ones (a worn scan's empty squares then
    /// carry speckled rings); strength = largest amount (2.0: the edge's contrast tripled).
    /// Off by default, a training augmentation: synth's output stays as it was.
    pub sharpen: Effect,
    /// Faded tones, as in a photo of a screen in daylight, grey newsprint or an old scan:
    /// blacks lifted towards grey, whites a little dimmed; strength = largest share of the
    /// tonal range lost (0.5). Off by default (synth's output stays as it was).
    pub fade: Effect,
    /// Underexposure, as in a photo taken in a dim room: every tone darkened and the
    /// shadows crushed (`255 e (v/255)^g`, exposure e 0.6-0.95, gamma g from 1.3 up to 1 +
    /// strength); the blacks stay black, so the tonal range barely narrows. Off by default
    /// (synth's output stays as it was).
    pub dim: Effect,
    /// Out of focus (a phone photo of a screen or a page): a Gaussian blur measured in
    /// squares, so a large board is as soft as a small one; strength = largest sigma as a
    /// share of a square (0.12). The plain `blur` is in pixels and leaves large boards
    /// sharp. Off by default (synth's output stays as it was).
    pub defocus: Effect,
}

impl DegradeConfig {
    /// No degradation at all: the clean render.
    pub const NONE: DegradeConfig = DegradeConfig {
        rescale: effect(0.0, 0.0),
        jpeg: effect(0.0, 0.0),
        blur: effect(0.0, 0.0),
        noise: effect(0.0, 0.0),
        color: effect(0.0, 0.0),
        lighting: effect(0.0, 0.0),
        glare: effect(0.0, 0.0),
        moire: effect(0.0, 0.0),
        paper: effect(0.0, 0.0),
        ink: effect(0.0, 0.0),
        scan: effect(0.0, 0.0),
        halftone: effect(0.0, 0.0),
        sharpen: effect(0.0, 0.0),
        fade: effect(0.0, 0.0),
        dim: effect(0.0, 0.0),
        defocus: effect(0.0, 0.0),
    };
}

impl Default for DegradeConfig {
    fn default() -> Self {
        DegradeConfig {
            rescale: effect(0.3, 12.0),
            jpeg: effect(0.35, 15.0),
            blur: effect(0.2, 1.5),
            noise: effect(0.2, 12.0),
            color: effect(0.3, 0.25),
            lighting: effect(0.12, 0.5),
            glare: effect(0.06, 0.6),
            moire: effect(0.04, 0.12),
            paper: effect(0.08, 0.12),
            ink: effect(0.15, 0.02),
            scan: effect(0.15, 0.12),
            halftone: effect(0.15, 0.08),
            sharpen: effect(0.0, 2.0),
            fade: effect(0.0, 0.5),
            dim: effect(0.0, 1.4),
            defocus: effect(0.0, 0.12),
        }
    }
}

/// The whole synth configuration.
#[derive(Clone, Copy, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SynthConfig {
    /// Which positions are drawn.
    pub positions: PositionMix,
    /// How boards look.
    pub look: LookConfig,
    /// Overlays on the board.
    pub overlays: OverlayConfig,
    /// Placement in the image and camera geometry.
    pub scene: SceneConfig,
    /// Image degradations.
    pub degrade: DegradeConfig,
}

impl SynthConfig {
    /// This config with the training-only augmentations (piece tint, stretch, mirror, grey
    /// black men, heavy lines, warped pieces, small pieces, rough print, hatch through,
    /// inner lines and marks, sharpening) and the overlays kept out of validation (frames,
    /// dots, crosses, book arrows, square letters) off: what validation sets and
    /// infer-like data are drawn with.
    pub fn without_training_augmentations(mut self) -> SynthConfig {
        self.look.rough_print = 0.0;
        self.look.hatch_through = 0.0;
        self.look.inner_lines = 0.0;
        self.look.inner_marks = 0.0;
        self.look.tinted_pieces = 0.0;
        self.look.stretched_pieces = 0.0;
        self.look.mirrored_pieces = 0.0;
        self.look.grey_black_men = 0.0;
        self.look.heavy_lines = 0.0;
        self.look.warped_pieces = 0.0;
        self.look.small_pieces = 0.0;
        self.degrade.sharpen.probability = 0.0;
        // Not training-only in kind, but off in validation so its sets stay comparable.
        self.overlays.frames = 0.0;
        self.overlays.dots = 0.0;
        self.overlays.crosses = 0.0;
        self.overlays.book_arrows = 0.0;
        self.overlays.square_letters = 0.0;
        self
    }

    /// Why this config cannot draw square crops (cut through a board's four corners, as
    /// `synth squares` and `train` cut them), if it cannot: `scene.curl` and `scene.lens`
    /// bend the board's lines, which four corners do not follow.
    pub fn squares_refused(&self) -> Option<String> {
        let bent: Vec<&str> = [
            ("scene.curl", self.scene.curl.probability),
            ("scene.lens", self.scene.lens.probability),
        ]
        .iter()
        .filter(|(_, p)| *p > 0.0)
        .map(|(name, _)| *name)
        .collect();
        (!bent.is_empty()).then(|| {
            format!(
                "{} {} the board's lines, which square crops cut through its four corners \
                 do not follow: set {} probability to 0 for square crops and training",
                bent.join(" and "),
                if bent.len() == 1 { "bends" } else { "bend" },
                if bent.len() == 1 { "its" } else { "their" },
            )
        })
    }

    /// Checks that every probability is in 0..=1 and sizes make sense.
    pub fn validate(&self) -> Result<(), String> {
        let probs = [
            (
                "positions.random_placement",
                self.positions.random_placement,
            ),
            ("positions.free_placement", self.positions.free_placement),
            ("positions.thinned_game", self.positions.thinned_game),
            ("degrade.ink.probability", self.degrade.ink.probability),
            ("degrade.scan.probability", self.degrade.scan.probability),
            (
                "degrade.halftone.probability",
                self.degrade.halftone.probability,
            ),
            (
                "degrade.sharpen.probability",
                self.degrade.sharpen.probability,
            ),
            ("degrade.fade.probability", self.degrade.fade.probability),
            ("degrade.dim.probability", self.degrade.dim.probability),
            (
                "degrade.defocus.probability",
                self.degrade.defocus.probability,
            ),
            ("look.random_theme", self.look.random_theme),
            ("look.book_theme", self.look.book_theme),
            ("look.black_bottom", self.look.black_bottom),
            ("look.coordinates_inside", self.look.coordinates_inside),
            ("look.coordinates_outside", self.look.coordinates_outside),
            ("look.frame", self.look.frame),
            ("look.shaded_pieces", self.look.shaded_pieces),
            ("look.tinted_pieces", self.look.tinted_pieces),
            ("look.stretched_pieces", self.look.stretched_pieces),
            ("look.mirrored_pieces", self.look.mirrored_pieces),
            ("look.rough_print", self.look.rough_print),
            ("look.hatch_through", self.look.hatch_through),
            ("look.inner_lines", self.look.inner_lines),
            ("look.inner_marks", self.look.inner_marks),
            ("look.grey_black_men", self.look.grey_black_men),
            ("look.heavy_lines", self.look.heavy_lines),
            ("look.warped_pieces", self.look.warped_pieces),
            ("look.small_pieces", self.look.small_pieces),
            ("overlays.last_move", self.overlays.last_move),
            ("overlays.marks", self.overlays.marks),
            ("overlays.check_glow", self.overlays.check_glow),
            ("overlays.move_dots", self.overlays.move_dots),
            ("overlays.circles", self.overlays.circles),
            ("overlays.frames", self.overlays.frames),
            ("overlays.dots", self.overlays.dots),
            ("overlays.crosses", self.overlays.crosses),
            ("overlays.played_move", self.overlays.played_move),
            ("overlays.dialog", self.overlays.dialog),
            ("overlays.book_arrows", self.overlays.book_arrows),
            ("overlays.square_letters", self.overlays.square_letters),
            ("overlays.arrows", self.overlays.arrows),
            ("scene.cropped", self.scene.cropped),
            ("scene.quarter_turn", self.scene.quarter_turn),
            ("scene.squash.probability", self.scene.squash.probability),
            ("scene.second_board", self.scene.second_board),
            ("scene.app_panels", self.scene.app_panels),
            ("scene.curl.probability", self.scene.curl.probability),
            ("scene.lens.probability", self.scene.lens.probability),
            (
                "scene.rotation.probability",
                self.scene.rotation.probability,
            ),
            (
                "scene.perspective.probability",
                self.scene.perspective.probability,
            ),
            (
                "degrade.rescale.probability",
                self.degrade.rescale.probability,
            ),
            ("degrade.jpeg.probability", self.degrade.jpeg.probability),
            ("degrade.blur.probability", self.degrade.blur.probability),
            ("degrade.noise.probability", self.degrade.noise.probability),
            ("degrade.color.probability", self.degrade.color.probability),
            (
                "degrade.lighting.probability",
                self.degrade.lighting.probability,
            ),
            ("degrade.glare.probability", self.degrade.glare.probability),
            ("degrade.moire.probability", self.degrade.moire.probability),
            ("degrade.paper.probability", self.degrade.paper.probability),
        ];
        for (name, p) in probs {
            if !(0.0..=1.0).contains(&p) {
                return Err(format!(
                    "{name} = {p}: a probability must be between 0 and 1"
                ));
            }
        }
        let positions = &self.positions;
        if positions.random_placement + positions.free_placement + positions.thinned_game > 1.0 {
            return Err("positions.random_placement + positions.free_placement + \
                 positions.thinned_game must not exceed 1"
                .into());
        }
        if self.look.coordinates_inside + self.look.coordinates_outside > 1.0 {
            return Err(
                "look.coordinates_inside + look.coordinates_outside must not exceed 1".into(),
            );
        }
        if self.scene.min_board < 32
            || self.scene.min_board > self.scene.max_board
            || self.scene.max_board > 4096
        {
            return Err(format!(
                "scene.min_board = {}, scene.max_board = {}: need 32 <= min <= max <= 4096",
                self.scene.min_board, self.scene.max_board
            ));
        }
        if !(0.05..=1.0).contains(&self.scene.min_board_fraction) {
            return Err("scene.min_board_fraction must be between 0.05 and 1".into());
        }
        if !(0.3..=1.0).contains(&self.look.min_piece_scale) {
            return Err("look.min_piece_scale must be between 0.3 and 1".into());
        }
        if !(0.3..=1.0).contains(&self.scene.squash.strength) {
            return Err("scene.squash.strength must be between 0.3 and 1".into());
        }
        if !(0.0..=75.0).contains(&self.scene.curl.strength) {
            return Err("scene.curl.strength must be between 0 and 75 (degrees)".into());
        }
        if !(0.0..=0.3).contains(&self.scene.lens.strength) {
            return Err("scene.lens.strength must be between 0 and 0.3".into());
        }
        if !(0.0..=0.4).contains(&self.scene.perspective.strength) {
            return Err("scene.perspective.strength must be between 0 and 0.4".into());
        }
        Ok(())
    }
}
