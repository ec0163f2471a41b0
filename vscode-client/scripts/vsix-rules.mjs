// What a WhyLens .vsix may contain (and must): the manifest, the bundle, the optional server
// wheel, README, LICENSE, CHANGELOG, media/ — plus the two metadata files vsce always writes.

export const ALLOWED = [
  /^\[Content_Types\]\.xml$/,
  /^extension\.vsixmanifest$/,
  /^extension\/package\.json$/,
  /^extension\/readme\.md$/i,
  /^extension\/changelog\.md$/i,
  /^extension\/license(\.txt|\.md)?$/i,
  /^extension\/vscode-client\/dist\/extension\.js$/,
  /^extension\/vscode-client\/dist\/wheels\/whylens-[^/]+\.whl$/,
  /^extension\/media\/[^/]+$/,
];

export const REQUIRED = [
  { what: 'the manifest', pattern: /^extension\/package\.json$/ },
  { what: 'the bundle', pattern: /^extension\/vscode-client\/dist\/extension\.js$/ },
  { what: 'a LICENSE', pattern: /^extension\/license(\.txt|\.md)?$/i },
  { what: 'a README', pattern: /^extension\/readme\.md$/i },
];

/** `entries`: file names inside the .vsix (zip). */
export function checkEntries(entries) {
  const files = entries.filter((e) => e && !e.endsWith('/'));
  return {
    unexpected: files.filter((e) => !ALLOWED.some((re) => re.test(e))),
    missing: REQUIRED.filter((r) => !files.some((e) => r.pattern.test(e))).map((r) => r.what),
  };
}
