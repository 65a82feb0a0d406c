/** A place in a reader's scope (scope.queries.ts finds them, scope-cache.ts keeps them): below both. */
export interface ScopedPlace {
  locationId: string;
  /** Milliseconds of rank subtracted from this place's posts (distance from the caller's place). */
  penalty: number;
}
