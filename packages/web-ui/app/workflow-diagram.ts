// A workflow definition drawn as inline SVG: boxes top to bottom in state order, arrows for
// transitions, the start state outlined and labelled, approval states dashed and labelled.
// All names are SVG text nodes (never markup). A table of the same transitions follows it.
import { dataTable, uid } from './components.js';
import { h, s } from './dom.js';
import { truncate } from './format.js';
import { layoutDiagram, workflowGraph, type GraphEdge, type GraphNode } from './workflow-graph.js';

function describe(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): string {
  const start = nodes.find((n) => n.start);
  const approvals = nodes.filter((n) => n.approval).map((n) => n.id);
  return [
    `${nodes.length} states${start ? `, starting at ${start.id}` : ''}.`,
    approvals.length > 0 ? `Approval states: ${approvals.join(', ')}.` : '',
    `${edges.length} transitions, listed in the table below.`,
  ]
    .filter(Boolean)
    .join(' ');
}

/** The diagram and its transitions table. */
export function renderWorkflowDiagram(definition: unknown, name: string): HTMLElement {
  const graph = workflowGraph(definition);
  if (graph.nodes.length === 0) {
    return h('p', { class: 'muted' }, 'The definition has no states to draw.');
  }
  const layout = layoutDiagram(graph);
  const titleId = uid('diagram-title');
  const descId = uid('diagram-desc');
  const arrowId = uid('arrow');
  const svg = s(
    'svg',
    {
      class: 'diagram',
      viewBox: `0 0 ${layout.width} ${layout.height}`,
      width: layout.width,
      height: layout.height,
      role: 'img',
      'aria-labelledby': `${titleId} ${descId}`,
    },
    s('title', { id: titleId }, `States of ${name}`),
    s('desc', { id: descId }, describe(graph.nodes, graph.edges)),
    s(
      'defs',
      null,
      s(
        'marker',
        {
          id: arrowId,
          viewBox: '0 0 10 10',
          refX: 9,
          refY: 5,
          markerWidth: 7,
          markerHeight: 7,
          orient: 'auto-start-reverse',
        },
        s('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrow-head' }),
      ),
    ),
    layout.edges.map((edge) =>
      s(
        'g',
        { class: edge.routed ? 'edge edge-routed' : 'edge' },
        s('polyline', {
          points: edge.points.map(([x, y]) => `${x},${y}`).join(' '),
          'marker-end': `url(#${arrowId})`,
        }),
        edge.label
          ? s('text', { x: edge.labelAt[0], y: edge.labelAt[1], class: 'edge-label' }, edge.label)
          : null,
      ),
    ),
    layout.nodes.map((node) =>
      s(
        'g',
        {
          class: [
            'node',
            node.start && 'node-start',
            node.approval && 'node-approval',
            node.end && 'node-end',
          ]
            .filter(Boolean)
            .join(' '),
          'data-state': node.id,
        },
        s('title', null, `${node.id} (${node.type})`),
        node.start
          ? s('text', { x: node.x, y: node.y - 8, class: 'start-label' }, '▶ start')
          : null,
        s('rect', { x: node.x, y: node.y, width: node.width, height: node.height, rx: 6 }),
        s('text', { x: node.x + 12, y: node.y + 20, class: 'node-id' }, truncate(node.id, 30)),
        s(
          'text',
          { x: node.x + 12, y: node.y + 38, class: 'node-type' },
          [
            node.approval && node.type !== 'human_approval' ? 'approval · ' : '',
            node.type,
            node.end ? ' · end' : '',
          ].join(''),
        ),
      ),
    ),
  );
  const byState = new Map<string, GraphEdge[]>();
  for (const edge of graph.edges) byState.set(edge.from, [...(byState.get(edge.from) ?? []), edge]);
  const table = dataTable<GraphNode>({
    caption: `Transitions of ${name}`,
    columns: [
      { header: 'State', cell: (n) => h('code', null, n.id) },
      {
        header: 'Type',
        cell: (n) => [n.type, n.start ? ' (start)' : '', n.approval ? ' (approval)' : ''].join(''),
      },
      {
        header: 'Goes to',
        cell: (n) => {
          const out = byState.get(n.id) ?? [];
          if (out.length === 0) return 'end';
          return out.map((e) => (e.label ? `${e.to} (${e.label})` : e.to)).join(', ');
        },
      },
    ],
    rows: graph.nodes,
    empty: 'No states.',
  });
  return h(
    'div',
    { class: 'diagram-block' },
    h(
      'figure',
      { class: 'diagram-figure' },
      h('div', { class: 'diagram-scroll' }, svg),
      h('figcaption', { class: 'muted' }, 'Start state marked “start”; approval states dashed.'),
    ),
    table.wrap,
  );
}
