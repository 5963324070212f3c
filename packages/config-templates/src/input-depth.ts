// The one limit on how deep a run's input may nest: the workflow door, schedule set (every
// surface) and a workflow file's schedule all ask here, so an input one accepts every other
// accepts too (a schedule stored with an input its fires would refuse fails every fire).
// Counted without recursion, so hostile input cannot overflow the stack.

/** Deepest nesting of objects and arrays a run's input may have (the input object is level 1). */
export const MAX_INPUT_DEPTH = 64;

/** How deep `value` nests (0 for a scalar), counted with a stack; stops counting past `limit`. */
export function nestingDepth(value: unknown, limit: number = MAX_INPUT_DEPTH): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [at, depth] = stack.pop() as [unknown, number];
    if (at === null || typeof at !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    for (const child of Object.values(at)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * What is wrong with the nesting of `input`, in words that finish "input …", or undefined when
 * it nests at most MAX_INPUT_DEPTH levels.
 */
export function inputDepthProblem(input: unknown): string | undefined {
  if (nestingDepth(input, MAX_INPUT_DEPTH) <= MAX_INPUT_DEPTH) return undefined;
  return `is nested more than ${MAX_INPUT_DEPTH} levels deep (objects and arrays inside one another); flatten it to at most ${MAX_INPUT_DEPTH} levels`;
}
