import { customType } from 'drizzle-orm/pg-core';

/**
 * PostGIS geography(Point,4326). Written as 'SRID=4326;POINT(lon lat)' EWKT; read back as the raw
 * column value (hex EWKB), which the services never parse: they select ST_Y/ST_X when they need degrees.
 */
export const geographyPoint = customType<{ data: string; driverData: string }>({
  dataType() {
    return 'geography(Point,4326)';
  },
});

export const pointEwkt = (longitude: number, latitude: number) => `SRID=4326;POINT(${longitude} ${latitude})`;
