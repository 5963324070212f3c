// A workflow definition as boxes and arrows: its top-level states in file order, top to bottom,
// with every transition the engine follows (next/transition, switch conditions and default,
// an approval's rejected and timeout paths). Reads the spellings workflows/definition.ts
// accepts. Pure, so it is tested in Node; workflow-diagram.ts draws the result as SVG.
import { truncate } from './format.js';

export interface GraphNode {
  id: string;
  type: string;
  start: boolean;
  approval: boolean;
  /** `end: true`, or no transition out. */
  end: boolean;
}

export interface GraphEdge {
  from: string;
  to: string;
  /** Why this path is taken (a condition, `default`, `rejected`, …); null for the plain next. */
  label: string | null;
}

export interface WorkflowGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

type Raw = Record<string, unknown>;

const isObject = (v: unknown): v is Raw => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v : undefined;

function nextOf(raw: Raw): string | undefined {
  const next = raw.transition ?? raw.next;
  if (isObject(next)) return str(next.nextState);
  return str(next);
}

function typeOf(raw: Raw): { type: string; approval: boolean } {
  const type = str(raw.type) ?? 'state';
  const operation = str(raw.operation) ?? (isObject(raw.input) ? str(raw.input.task) : undefined);
  if (type === 'human_approval' || type === 'await') return { type, approval: true };
  if (['operation', 'action', 'function'].includes(type) && operation === 'human.approval') {
    return { type: 'human_approval', approval: true };
  }
  if (['operation', 'action', 'function'].includes(type) && operation?.startsWith('agent.')) {
    return { type: 'agent', approval: false };
  }
  return { type, approval: false };
}

/** The graph of a definition; states without an id and arrows to unknown states are left out. */
export function workflowGraph(definition: unknown): WorkflowGraph {
  const rawStates =
    isObject(definition) && Array.isArray(definition.states) ? definition.states : [];
  const states = rawStates.filter(isObject).flatMap((raw) => {
    const id = str(raw.id) ?? str(raw.name);
    return id === undefined ? [] : [{ id, raw }];
  });
  const known = new Set(states.map((s) => s.id));
  const def = isObject(definition) ? definition : {};
  const startField = isObject(def.start) ? str(def.start.stateName) : str(def.start);
  const start = startField !== undefined && known.has(startField) ? startField : states[0]?.id;

  const edges: GraphEdge[] = [];
  const nodes: GraphNode[] = states.map(({ id, raw }) => {
    const { type, approval } = typeOf(raw);
    const out: GraphEdge[] = [];
    const add = (to: string | undefined, label: string | null): void => {
      if (to !== undefined && known.has(to)) out.push({ from: id, to, label });
    };
    if (type === 'switch' && Array.isArray(raw.conditions)) {
      for (const c of raw.conditions.filter(isObject)) {
        const when =
          str(c.if) ?? str(c.condition) ?? (typeof c.if === 'boolean' ? String(c.if) : '');
        add(str(c.next), truncate(when, 28) || 'if');
      }
      add(str(raw.defaultNext) ?? str(raw.default), 'default');
    }
    add(nextOf(raw), approval ? 'approved' : null);
    if (approval) {
      add(str(raw.onRejected) ?? str(raw.on_rejected) ?? str(raw.onReject), 'rejected');
      add(str(raw.onTimeout) ?? str(raw.on_timeout), 'timeout');
    }
    edges.push(...out);
    return { id, type, start: id === start, approval, end: raw.end === true || out.length === 0 };
  });
  return { nodes, edges };
}

/** Sizes of the drawing, in SVG user units. */
export const DIAGRAM = {
  margin: 16,
  top: 28,
  boxWidth: 240,
  boxHeight: 48,
  gap: 40,
  lane: 16,
  labelRoom: 170,
} as const;

export interface PlacedNode extends GraphNode {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PlacedEdge extends GraphEdge {
  /** Polyline points; the arrowhead is at the last one. */
  points: Array<[number, number]>;
  labelAt: [number, number];
  /** A straight arrow to the next box, or routed around the right side. */
  routed: boolean;
}

export interface DiagramLayout {
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  width: number;
  height: number;
}

/**
 * Places the boxes top to bottom in state order. The first plain arrow to the next box goes
 * straight down; every other arrow leaves the box's right side, runs down (or up) its own
 * lane and comes back into the target's right side.
 */
export function layoutDiagram(graph: WorkflowGraph): DiagramLayout {
  const { margin, top, boxWidth, boxHeight, gap, lane, labelRoom } = DIAGRAM;
  const index = new Map(graph.nodes.map((n, i) => [n.id, i]));
  const nodes: PlacedNode[] = graph.nodes.map((n, i) => ({
    ...n,
    x: margin,
    y: top + i * (boxHeight + gap),
    width: boxWidth,
    height: boxHeight,
  }));
  const straightUsed = new Set<number>();
  let lanes = 0;
  const right = margin + boxWidth;
  const edges: PlacedEdge[] = graph.edges.map((edge) => {
    const from = index.get(edge.from) ?? 0;
    const to = index.get(edge.to) ?? 0;
    const a = nodes[from] as PlacedNode;
    const b = nodes[to] as PlacedNode;
    if (to === from + 1 && !straightUsed.has(from)) {
      straightUsed.add(from);
      const x = a.x + a.width / 2;
      const y1 = a.y + a.height;
      return {
        ...edge,
        points: [
          [x, y1],
          [x, b.y],
        ],
        labelAt: [x + 8, y1 + gap / 2 + 4],
        routed: false,
      };
    }
    const laneX = right + lane * (lanes + 1);
    lanes += 1;
    const yOut = a.y + a.height * 0.35;
    const yIn = b.y + b.height * 0.65;
    return {
      ...edge,
      points: [
        [right, yOut],
        [laneX, yOut],
        [laneX, yIn],
        [right, yIn],
      ],
      // Beside where the arrow leaves its box, so labels of neighbouring lanes do not meet.
      labelAt: [laneX + 4, yIn >= yOut ? yOut + 14 : yOut - 6],
      routed: true,
    };
  });
  const height =
    nodes.length === 0 ? top + margin : top + nodes.length * (boxHeight + gap) - gap + margin;
  const width = right + lane * (lanes + 1) + labelRoom;
  return { nodes, edges, width, height };
}
