/**
 * Board renderers: text for terminals, SVG for files and the dashboard, and e2.bucas.name viewer links.
 * All are pure string functions of (puzzle, board, options); partial boards (null cells) are accepted.
 */

export { renderText, type TextRenderOptions } from "./text.js";
export { renderSVG, type SvgRenderOptions } from "./svg.js";
export { bucasLink, bucasBoardEdges, bucasBoardPieces, BUCAS_VIEWER_URL, type BucasLinkOptions } from "./bucas.js";
export { colourHex, colourLetter, PALETTE, MAX_LETTER_COLOUR } from "./palette.js";
