import { SIMILARITY_GROUPING_THRESHOLD, nameSimilarity } from './name-similarity.js';
import { round4 } from './vote-weight.js';

/**
 * Consensus naming: suggestions are grouped by similarity, each group scored, and the location renamed
 * only when the rule of the contract says so. Pure functions; the service feeds them database rows.
 */
export interface Vote {
  name: string;
  weight: number;
}

export interface NameGroup {
  /** The highest-weighted name of the group (its "top-voted name"). */
  representative: string;
  totalWeight: number;
  /** The distinct names in the group with their summed weights, heaviest first. */
  names: Vote[];
}

const byWeightThenName = (a: Vote, b: Vote) => b.weight - a.weight || a.name.localeCompare(b.name);

/** Sum the weights of identical names (exact text), heaviest first. */
export function tallyNames(votes: readonly Vote[]): Vote[] {
  const sums = new Map<string, number>();
  for (const v of votes) sums.set(v.name, (sums.get(v.name) ?? 0) + v.weight);
  return [...sums].map(([name, weight]) => ({ name, weight: round4(weight) })).sort(byWeightThenName);
}

/**
 * The distinct names (exact text, heaviest first) that grouping considers. Grouping compares each name
 * with every group found so far, so its cost grows with the square of the names: capped, a location
 * that collected thousands of names costs at most 25 × 24 / 2 comparisons per decision, like one that
 * collected 25. Lighter names still count in the total weight (they lower every group's agreement),
 * they just found no group of their own.
 */
export const CONSIDERED_NAMES = 25;

/**
 * Greedy grouping at 85 %: the heaviest CONSIDERED_NAMES names are visited heaviest first; each joins the
 * first group whose representative it resembles at or above the threshold, or founds a new group.
 * Visiting heaviest first makes the representative the highest-weighted member, and the result deterministic.
 */
export function groupNames(votes: readonly Vote[]): NameGroup[] {
  const groups: NameGroup[] = [];
  for (const vote of tallyNames(votes).slice(0, CONSIDERED_NAMES)) {
    const home = groups.find((g) => nameSimilarity(g.representative, vote.name) >= SIMILARITY_GROUPING_THRESHOLD);
    if (home) {
      home.names.push(vote);
      home.totalWeight = round4(home.totalWeight + vote.weight);
    } else {
      groups.push({ representative: vote.name, totalWeight: vote.weight, names: [vote] });
    }
  }
  return groups.sort((a, b) => b.totalWeight - a.totalWeight || a.representative.localeCompare(b.representative));
}

/** The group the given name would fall into, if any. */
export const groupOf = (groups: readonly NameGroup[], name: string) =>
  groups.find((g) => nameSimilarity(g.representative, name) >= SIMILARITY_GROUPING_THRESHOLD) ?? null;

/**
 * Confidence that a location is called `name`, 0..1:
 *
 *   agreement  = weight of the name's group / weight of all suggestions      (0 when nobody suggested it)
 *   turnout    = min(1, suggesters / min(total_users, 10))                    ten voices, or every member of a smaller place, are enough
 *   population = min(1, ln(1 + total_users) / ln(21))                         saturates at 20 users
 *   confidence = min(1, 0.5 × agreement × turnout + 0.3 × population + 0.3 × moderator_approved)
 *
 * Moderator approval counts only for the current name (a moderator approved that name).
 */
export interface ConfidenceInputs {
  agreement: number;
  suggesters: number;
  totalUsers: number;
  moderatorApproved: boolean;
}

export function confidence({ agreement, suggesters, totalUsers, moderatorApproved }: ConfidenceInputs): number {
  const users = Math.max(0, totalUsers);
  const turnout = suggesters > 0 ? Math.min(1, suggesters / Math.max(1, Math.min(users, 10))) : 0;
  const population = Math.min(1, Math.log(1 + users) / Math.log(21));
  const score = 0.5 * Math.max(0, Math.min(1, agreement)) * turnout + 0.3 * population + (moderatorApproved ? 0.3 : 0);
  return round4(Math.min(1, Math.max(0, score)));
}

export const RENAME_MIN_CONFIDENCE = 0.6;
export const RENAME_MIN_IMPROVEMENT = 0.1;

/** The contract's rule: above 60 % confidence and at least 10 % better (relative) than the current name. */
export function shouldRename(candidateConfidence: number, currentConfidence: number): boolean {
  const EPS = 1e-9;
  return candidateConfidence > RENAME_MIN_CONFIDENCE + EPS && candidateConfidence + EPS >= currentConfidence * (1 + RENAME_MIN_IMPROVEMENT);
}

export interface ConsensusState {
  currentName: string;
  totalUsers: number;
  moderatorApproved: boolean;
  /** One vote per suggester (the active suggestion of each user), or, with `totals`, the heaviest names already summed. */
  votes: readonly Vote[];
  /** Weight and number of all active suggestions, when `votes` holds only the heaviest names (the database summed them). */
  totals?: { weight: number; suggesters: number };
}

export interface ConsensusDecision {
  groups: NameGroup[];
  currentConfidence: number;
  /** The winning group's top-voted name when it is not the current name, else null. */
  candidate: { name: string; confidence: number } | null;
  rename: boolean;
  /** The location's confidence_score after the decision. */
  confidenceScore: number;
}

export function decideConsensus(state: ConsensusState): ConsensusDecision {
  const groups = groupNames(state.votes);
  const total = state.totals?.weight ?? state.votes.reduce((sum, v) => sum + v.weight, 0);
  const suggesters = state.totals?.suggesters ?? state.votes.length;
  const share = (g: NameGroup | null) => (g && total > 0 ? g.totalWeight / total : 0);
  const currentConfidence = confidence({ agreement: share(groupOf(groups, state.currentName)), suggesters, totalUsers: state.totalUsers, moderatorApproved: state.moderatorApproved });
  const winner = groups[0];
  if (!winner || groupOf(groups, state.currentName) === winner) {
    return { groups, currentConfidence, candidate: null, rename: false, confidenceScore: currentConfidence };
  }
  const candidateConfidence = confidence({ agreement: share(winner), suggesters, totalUsers: state.totalUsers, moderatorApproved: false });
  const rename = shouldRename(candidateConfidence, currentConfidence);
  return {
    groups,
    currentConfidence,
    candidate: { name: winner.representative, confidence: candidateConfidence },
    rename,
    confidenceScore: rename ? candidateConfidence : currentConfidence,
  };
}
