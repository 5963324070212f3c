// The instructions Junction sends a bus backend for the session operations that have no
// message of their own in the protocol (the reference service does the same): opening a
// workspace, committing and pushing are tasks whose prompt says exactly which commands to run.

/** A git argument in double quotes, as a shell would read it back. */
function quoted(text: string): string {
  return `"${text.replace(/(["\\$`])/g, '\\$1')}"`;
}

export function openPrompt(title: string | null): string {
  return [
    `This is the start of a coding session${title ? ` (${title})` : ''}. Do not change anything yet.`,
    'Reply with one line: ready.',
  ].join('\n');
}

export function commitPrompt(message: string): string {
  return [
    'Commit every change in the workspace by running exactly these commands, then report the new commit hash:',
    '1. git add -A',
    `2. git commit -m ${quoted(message.replace(/\r?\n/g, ' '))}`,
    '3. git rev-parse HEAD',
  ].join('\n');
}

export function pushPrompt(remote: string, branch: string | undefined): string {
  return [
    'Push the commits to the remote by running exactly this command, then report what git said:',
    `1. git push ${remote} ${branch ?? 'HEAD'}`,
  ].join('\n');
}

/** The prompt of one `code` call: the instruction first, then its context and files when given. */
export function codePrompt(
  instruction: string,
  context?: string,
  files?: readonly string[],
): string {
  let prompt = instruction;
  if (context) prompt += `\n\nContext: ${context}`;
  if (files && files.length > 0) prompt += `\n\nFocus on these files: ${files.join(', ')}`;
  return prompt;
}
