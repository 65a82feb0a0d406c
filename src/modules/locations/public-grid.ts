/**
 * Where a location is said to be, to anyone: never finer than a grid cell of about 556 m (0.005° of
 * latitude; each row of cells is cut into a whole number of cells of nearly the same width, so cells stay
 * roughly square at every latitude and tile the globe). A published coordinate pair is always the centre
 * of a cell, so it tells which cell a point lies in and nothing more: published values of two places
 * whose members differ only inside their cells are identical, and no difference between two of them
 * (a join, a leave) says more than the cells did.
 */
export const CELL_LAT_DEGREES = 0.005;
const ROWS_PER_HEMISPHERE = Math.round(90 / CELL_LAT_DEGREES);
const METRES_PER_DEGREE = 111_320;

/**
 * How far a point inside a cell can be from the cell's centre (half its diagonal, 395 m at most outside
 * the polar rows), rounded up: a location is joined from within its published radius plus this margin of
 * its published centre, so everyone inside the exact boundary is still inside.
 */
export const CELL_MARGIN_M = 400;

/**
 * Members a location needs before its published centre and radius follow its members at all. Below it
 * the centre stays the cell the location began in and the radius 500 m: with few members each join
 * moves the centroid far enough that a newcomer chosen by an attacker could find, by the cell the
 * centroid falls in, where the others live (a join is a probe; repeated, it bisects).
 */
export const K_MEMBERS = 10;

/** Published radii move in steps of 100 m: one join changes the 90th percentile by less than that. */
export const RADIUS_STEP_M = 100;

export interface Cell {
  row: number;
  column: number;
  columns: number;
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** Cells in the row whose centre latitude is given: the row's length over the cell height, at least 1. */
function columnsAt(rowCentreLatitude: number): number {
  return Math.max(1, Math.floor((360 * Math.cos((rowCentreLatitude * Math.PI) / 180)) / CELL_LAT_DEGREES));
}

export function cellOf(latitude: number, longitude: number): Cell {
  const row = Math.min(ROWS_PER_HEMISPHERE - 1, Math.max(-ROWS_PER_HEMISPHERE, Math.floor(latitude / CELL_LAT_DEGREES)));
  const columns = columnsAt((row + 0.5) * CELL_LAT_DEGREES);
  const column = ((Math.floor(((longitude + 180) / 360) * columns) % columns) + columns) % columns;
  return { row, column, columns };
}

export function cellCentre(cell: Cell): { latitude: number; longitude: number } {
  return { latitude: round6((cell.row + 0.5) * CELL_LAT_DEGREES), longitude: round6(-180 + ((cell.column + 0.5) * 360) / cell.columns) };
}

/** The centre of the cell the point lies in: the only form in which a location's coordinates leave the service. */
export function snapToCell(latitude: number, longitude: number): { latitude: number; longitude: number } {
  return cellCentre(cellOf(latitude, longitude));
}

/** The published radius: whole steps of 100 m, within the bounds the radius already had (200..2000). */
export const publishedRadius = (radiusM: number) => Math.round(radiusM / RADIUS_STEP_M) * RADIUS_STEP_M;

/** Metres per degree of latitude: the published grid's cells are CELL_LAT_DEGREES × this tall. */
export const CELL_HEIGHT_M = CELL_LAT_DEGREES * METRES_PER_DEGREE;
