/**
 * The font plots draw text in: Helvetica, one of the PDF standard fonts (every PDF reader has it, nothing
 * is embedded), and its look-alikes in SVG. CAD text height is the height of a capital letter; Helvetica's
 * capitals are 0.718 of its em (its AFM CapHeight 718), so a font size of height / 0.718 draws them that tall.
 */
export const PDF_FONT = 'Helvetica';
export const FONT_FAMILY = 'Helvetica, Arial, Liberation Sans, sans-serif';
export const CAP_HEIGHT = 0.718;
