import { CELL_HEIGHT_M, CELL_MARGIN_M, cellCentre, cellOf, publishedRadius, snapToCell } from '../../src/modules/locations/public-grid.js';

/** Metres between two points (haversine; plenty for cells of half a kilometre). */
function metres(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }) {
  const rad = Math.PI / 180;
  const h = Math.sin(((b.latitude - a.latitude) * rad) / 2) ** 2 + Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(((b.longitude - a.longitude) * rad) / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(h));
}

describe('the published grid', () => {
  test('when a point is snapped, then it becomes its cell centre, snapping that again changes nothing, and the centre is within the cell margin of the point', () => {
    for (const [lat, lon] of [[51.5074, -0.1278], [-33.8688, 151.2093], [0.0001, 179.9999], [-59.99, -139.5], [70.1234, 20.5678], [-0.0001, -180]]) {
      const centre = snapToCell(lat, lon);
      expect(snapToCell(centre.latitude, centre.longitude)).toEqual(centre);
      expect(metres({ latitude: lat, longitude: lon }, centre)).toBeLessThanOrEqual(CELL_MARGIN_M);
    }
  });

  test('when cells are measured away from the poles, then they are roughly square (about 556 m a side)', () => {
    for (const lat of [0.0025, 30.0025, 50.0025, 65.0025]) {
      const here = cellOf(lat, 10);
      const centre = cellCentre(here);
      const east = cellCentre({ ...here, column: here.column + 1 });
      // The next row up (its columns do not line up with these: compare latitudes only).
      const north = { latitude: cellCentre(cellOf(lat + 0.005, 10)).latitude, longitude: centre.longitude };
      expect(Math.abs(metres(centre, north) - CELL_HEIGHT_M) / CELL_HEIGHT_M).toBeLessThan(0.01);
      expect(Math.abs(metres(centre, east) - CELL_HEIGHT_M) / CELL_HEIGHT_M).toBeLessThan(0.01);
    }
  });

  test('when the point is on the edge of the map (poles, antimeridian), then it still falls in a valid cell', () => {
    expect(cellOf(90, 180)).toMatchObject({ row: 17999, column: 0 });
    expect(snapToCell(-90, -180).latitude).toBe(-89.9975);
    expect(snapToCell(10, 180)).toEqual(snapToCell(10, -180));
  });

  test('when a radius is published, then it is a whole 100 m step', () => {
    expect([200, 249, 251, 1349, 2000].map(publishedRadius)).toEqual([200, 200, 300, 1300, 2000]);
  });
});
