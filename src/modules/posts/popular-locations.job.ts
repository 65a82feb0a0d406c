import type { JobDefinition } from '../../core/job-definition.js';
import { refreshPopularLocations } from './popular-locations.js';

/** Every minute: count the posts of the most popular locations again (popular-locations.ts). Idempotent. */
export const popularLocationsRefreshJob: JobDefinition = {
  name: 'posts.popular_locations_refresh',
  schedule: '* * * * *',
  run: async () => {
    await refreshPopularLocations();
    return { refreshed: true };
  },
};
