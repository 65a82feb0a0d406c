import { voteWeight } from '../../src/modules/locations/vote-weight.js';
import { foldName, nameSimilarity, similarityPercent } from '../../src/modules/locations/name-similarity.js';
import { confidence, decideConsensus, groupNames, shouldRename } from '../../src/modules/locations/consensus.js';

describe('vote weight', () => {
  test('when the account is brand new, then it weighs 0.1 halved by the under-7-days factor', () => {
    expect(voteWeight({ accountAgeDays: 0, activityCount: 0, isVerified: false })).toBe(0.05);
  });

  test('when the account is two years old, then the age factor reaches 2.0 and stays there', () => {
    expect(voteWeight({ accountAgeDays: 730, activityCount: 0, isVerified: false })).toBe(2);
    expect(voteWeight({ accountAgeDays: 2000, activityCount: 0, isVerified: false })).toBe(2);
    expect(voteWeight({ accountAgeDays: 365, activityCount: 0, isVerified: false })).toBe(1.05);
  });

  test('when the account crosses 7 days, then the newcomer halving stops', () => {
    const sixDays = voteWeight({ accountAgeDays: 6.99, activityCount: 0, isVerified: false });
    const sevenDays = voteWeight({ accountAgeDays: 7, activityCount: 0, isVerified: false });
    expect(sixDays).toBeCloseTo((0.1 + (1.9 * 6.99) / 730) * 0.5, 4);
    expect(sevenDays).toBeCloseTo(0.1 + (1.9 * 7) / 730, 4);
  });

  test('when the user is active and verified, then activity (up to 1.5x at 50 items) and verification (1.2x) multiply', () => {
    expect(voteWeight({ accountAgeDays: 730, activityCount: 25, isVerified: false })).toBe(2.5);
    expect(voteWeight({ accountAgeDays: 730, activityCount: 50, isVerified: false })).toBe(3);
    expect(voteWeight({ accountAgeDays: 730, activityCount: 5000, isVerified: true })).toBe(3.6);
  });
});

describe('name similarity and grouping at 85 %', () => {
  test('when names differ only in case, accents and punctuation, then they are the same name', () => {
    expect(foldName("  Café  St. Mary's ")).toBe('cafe st marys');
    expect(nameSimilarity('CAFÉ st. marys', "Cafe St Mary's")).toBe(1);
  });

  test('when a name has one typo in nine letters, then it is 89 % alike and grouped; two typos in nine are not', () => {
    expect(similarityPercent('Greenwood', 'Greenwod')).toBe(89);
    expect(nameSimilarity('Greenwood', 'Greenwod')).toBeGreaterThanOrEqual(0.85);
    expect(nameSimilarity('Greenwood', 'Grenwod')).toBeLessThan(0.85);
  });

  test('when suggestions are grouped, then weights are summed and the heaviest member represents the group', () => {
    const groups = groupNames([
      { name: 'Greenwod', weight: 0.5 },
      { name: 'Greenwood', weight: 1 },
      { name: 'greenwood', weight: 0.25 },
      { name: 'Oak Hill', weight: 1.2 },
      { name: 'Greenwood', weight: 0.5 },
    ]);
    expect(groups).toEqual([
      { representative: 'Greenwood', totalWeight: 2.25, names: [{ name: 'Greenwood', weight: 1.5 }, { name: 'Greenwod', weight: 0.5 }, { name: 'greenwood', weight: 0.25 }] },
      { representative: 'Oak Hill', totalWeight: 1.2, names: [{ name: 'Oak Hill', weight: 1.2 }] },
    ]);
  });
});

describe('confidence and the rename thresholds', () => {
  test('when nobody voted, then confidence comes from the user count alone, saturating at 20 users', () => {
    expect(confidence({ agreement: 0, suggesters: 0, totalUsers: 0, moderatorApproved: false })).toBe(0);
    expect(confidence({ agreement: 0, suggesters: 0, totalUsers: 20, moderatorApproved: false })).toBe(0.3);
    expect(confidence({ agreement: 0, suggesters: 0, totalUsers: 500, moderatorApproved: false })).toBe(0.3);
  });

  test('when ten or more members all agree, with moderator approval, then confidence is 1', () => {
    expect(confidence({ agreement: 1, suggesters: 10, totalUsers: 100, moderatorApproved: true })).toBe(1);
    expect(confidence({ agreement: 1, suggesters: 10, totalUsers: 100, moderatorApproved: false })).toBe(0.8);
  });

  test('when the candidate is at or just under 60 %, then no rename; just over, then rename', () => {
    expect(shouldRename(0.6, 0)).toBe(false);
    expect(shouldRename(0.5999, 0)).toBe(false);
    expect(shouldRename(0.6001, 0)).toBe(true);
  });

  test('when the candidate is under 10 % better than the current name, then no rename; at 10 %, then rename', () => {
    expect(shouldRename(0.65, 0.6)).toBe(false);
    expect(shouldRename(0.6599, 0.6)).toBe(false);
    expect(shouldRename(0.66, 0.6)).toBe(true);
  });

  const ten = (b: number, x: number) => [...Array(b)].map(() => ({ name: 'Bluebell', weight: 0.05 })).concat([...Array(x)].map(() => ({ name: 'Oldtown', weight: 0.05 })));

  test('when 7 of 10 members back a new name, then it stays; when 8 do, then the location is renamed to it', () => {
    const seven = decideConsensus({ currentName: 'Oldtown', totalUsers: 10, moderatorApproved: false, votes: ten(7, 0) });
    expect(seven.candidate?.confidence).toBeCloseTo(0.5863, 4);
    expect(seven.rename).toBe(false);
    const eight = decideConsensus({ currentName: 'Oldtown', totalUsers: 10, moderatorApproved: false, votes: ten(8, 0) });
    expect(eight).toMatchObject({ rename: true, candidate: { name: 'Bluebell' } });
    expect(eight.confidenceScore).toBeCloseTo(0.6363, 4);
  });

  test('when an approved name keeps 2 of 10 votes, then 8 for another (63.6 %) is not 10 % better; at 9 to 1 it is', () => {
    const blocked = decideConsensus({ currentName: 'Oldtown', totalUsers: 10, moderatorApproved: true, votes: ten(8, 2) });
    expect(blocked.candidate!.confidence).toBeGreaterThan(0.6);
    expect(blocked.rename).toBe(false);
    expect(blocked.confidenceScore).toBe(blocked.currentConfidence);
    const passes = decideConsensus({ currentName: 'Oldtown', totalUsers: 10, moderatorApproved: true, votes: ten(9, 1) });
    expect(passes.rename).toBe(true);
  });

  test('when the winning group already holds the current name, then there is no candidate', () => {
    const d = decideConsensus({ currentName: 'oldtown', totalUsers: 3, moderatorApproved: false, votes: [{ name: 'Oldtown', weight: 1 }, { name: 'Elsewhere', weight: 0.2 }] });
    expect(d.candidate).toBeNull();
    expect(d.rename).toBe(false);
  });
});

describe('bounded grouping', () => {
  /** n names of 14 letters that are pairwise far apart (each a different run of the alphabet, shifted). */
  const distinctNames = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ name: Array.from({ length: 14 }, (_, k) => String.fromCharCode(97 + ((i * 7 + k * (i % 5 + 1)) % 26))).join('') + i, weight: 1 + (n - i) / n }));

  test('when a location collected 500 distinct names, then only the heaviest 25 are grouped (25 groups at most), and the lighter ones still dilute the agreement', () => {
    const votes = distinctNames(500);
    const groups = groupNames(votes);
    expect(groups.length).toBeLessThanOrEqual(25);
    expect(groups[0].representative).toBe(votes[0].name);
    const total = votes.reduce((s, v) => s + v.weight, 0);
    const decision = decideConsensus({ currentName: 'Oldtown', totalUsers: 500, moderatorApproved: false, votes: votes.slice(0, 25), totals: { weight: total, suggesters: 500 } });
    // agreement = the top name's share of all 500 suggestions (about 0.4 %), not of the 25 considered.
    expect(decision.candidate?.confidence).toBeCloseTo(0.5 * (votes[0].weight / total) + 0.3, 3);
    expect(decision.rename).toBe(false);
  });
});
