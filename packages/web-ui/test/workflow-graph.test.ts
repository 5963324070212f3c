// The workflow diagram's graph and layout: states in file order, every transition the engine
// follows, the start and approval states marked.
import { describe, expect, it } from '@jest/globals';
import { DIAGRAM, layoutDiagram, workflowGraph } from '../app/workflow-graph.js';

const INCIDENT = {
  id: 'incident-triage',
  start: 'classify',
  states: [
    { id: 'fetch', type: 'inject', data: {}, next: 'classify' },
    { id: 'classify', type: 'agent', agent: 'triage', transition: { nextState: 'route' } },
    {
      id: 'route',
      type: 'switch',
      conditions: [{ if: 'output.severity == "high"', next: 'approve' }],
      defaultNext: 'done',
    },
    {
      name: 'approve',
      type: 'operation',
      operation: 'human.approval',
      transition: 'page',
      onRejected: 'done',
    },
    { id: 'page', type: 'agent', transition: 'done' },
    { id: 'done', type: 'inject', data: {}, end: true },
    { type: 'inject' },
  ],
};

describe('workflowGraph', () => {
  it('reads states in order, marks the start and approval states, and knows the ends', () => {
    const { nodes } = workflowGraph(INCIDENT);
    expect(nodes.map((n) => [n.id, n.type, n.start, n.approval, n.end])).toEqual([
      ['fetch', 'inject', false, false, false],
      ['classify', 'agent', true, false, false],
      ['route', 'switch', false, false, false],
      ['approve', 'human_approval', false, true, false],
      ['page', 'agent', false, false, false],
      ['done', 'inject', false, false, true],
    ]);
  });

  it('follows next, transition (string or object), switch conditions, default and rejected paths', () => {
    expect(workflowGraph(INCIDENT).edges).toEqual([
      { from: 'fetch', to: 'classify', label: null },
      { from: 'classify', to: 'route', label: null },
      { from: 'route', to: 'approve', label: 'output.severity == "high"' },
      { from: 'route', to: 'done', label: 'default' },
      { from: 'approve', to: 'page', label: 'approved' },
      { from: 'approve', to: 'done', label: 'rejected' },
      { from: 'page', to: 'done', label: null },
    ]);
  });

  it('starts at the first state without a start field, and drops arrows to unknown states', () => {
    const graph = workflowGraph({
      states: [
        { id: 'a', type: 'human_approval', transition: 'b', on_timeout: 'ghost' },
        { id: 'b', type: 'inject' },
      ],
    });
    expect(graph.nodes[0]).toMatchObject({ id: 'a', start: true, approval: true });
    expect(graph.edges).toEqual([{ from: 'a', to: 'b', label: 'approved' }]);
  });

  it('is empty for a definition without states', () => {
    expect(workflowGraph(null)).toEqual({ nodes: [], edges: [] });
    expect(workflowGraph({ states: 'nope' })).toEqual({ nodes: [], edges: [] });
  });
});

describe('layoutDiagram', () => {
  it('stacks the boxes top to bottom in state order', () => {
    const layout = layoutDiagram(workflowGraph(INCIDENT));
    const ys = layout.nodes.map((n) => n.y);
    expect(ys).toEqual([...ys].sort((a, b) => a - b));
    expect(ys[1]! - ys[0]!).toBe(DIAGRAM.boxHeight + DIAGRAM.gap);
    expect(layout.height).toBeGreaterThan(ys.at(-1)! + DIAGRAM.boxHeight);
  });

  it('draws the first arrow to the next box straight down and routes the others on the right', () => {
    const layout = layoutDiagram(workflowGraph(INCIDENT));
    const fetchToClassify = layout.edges[0]!;
    expect(fetchToClassify.routed).toBe(false);
    const [from, to] = fetchToClassify.points;
    expect(from![0]).toBe(to![0]);
    expect(to![1]).toBe(layout.nodes[1]!.y);

    const routed = layout.edges.filter((e) => e.routed);
    expect(routed.map((e) => [e.from, e.to])).toEqual([
      ['route', 'done'],
      ['approve', 'done'],
    ]);
    // Each routed arrow has its own lane right of the boxes, and the drawing is wide enough.
    const lanes = routed.map((e) => e.points[1]![0]);
    expect(new Set(lanes).size).toBe(lanes.length);
    expect(Math.max(...lanes)).toBeLessThan(layout.width);
    expect(Math.min(...lanes)).toBeGreaterThan(DIAGRAM.margin + DIAGRAM.boxWidth);
  });
});
