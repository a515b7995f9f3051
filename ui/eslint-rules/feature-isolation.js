// A local ESLint rule: a file under src/features/<a>/ may not import from
// src/features/<b>/ (STYLE.md "features do not import each other"). Routes in
// src/app put features together; what two features share lives in src/lib,
// src/components or src/hooks. Both the `@/` alias and relative paths count,
// as do `export … from`, `import()` and `vi.mock()`.

import path from 'node:path';

const SOURCE = path.resolve(import.meta.dirname, '../src');
const FEATURES = path.join(SOURCE, 'features');

/** The feature a file or module path sits in, or null outside src/features. */
function featureOf(file) {
  const relative = path.relative(FEATURES, file);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return null;
  const [feature] = relative.split(path.sep);
  return feature || null;
}

/** Where an import points on disk, for the specifiers that can point into src. */
function target(specifier, file) {
  if (specifier.startsWith('@/')) return path.join(SOURCE, specifier.slice(2));
  if (specifier.startsWith('./') || specifier.startsWith('../')) return path.resolve(path.dirname(file), specifier);
  return null;
}

export const featureIsolation = {
  meta: {
    type: 'problem',
    docs: { description: 'A feature does not import from another feature' },
    schema: [],
    messages: {
      otherFeature:
        "features/{{own}} imports from features/{{other}}: features do not import each other. Put the shared piece in src/lib, src/components or src/hooks, or let a route in src/app hand it in.",
    },
  },
  create(context) {
    const file = context.filename;
    const own = featureOf(file);
    if (!own) return {};
    const check = (node) => {
      if (!node || node.type !== 'Literal' || typeof node.value !== 'string') return;
      const resolved = target(node.value, file);
      const other = resolved && featureOf(resolved);
      if (other && other !== own) context.report({ node, messageId: 'otherFeature', data: { own, other } });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      CallExpression(node) {
        const callee = node.callee;
        const mocks = callee.type === 'MemberExpression' && callee.object.type === 'Identifier' && callee.object.name === 'vi' && callee.property.type === 'Identifier' && ['mock', 'doMock', 'importActual'].includes(callee.property.name);
        if (mocks) check(node.arguments[0]);
      },
    };
  },
};

export default { rules: { 'feature-isolation': featureIsolation } };
