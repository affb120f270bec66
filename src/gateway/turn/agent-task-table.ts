/**
 * The agent tasks running in this process: each turn (depth 0) and each sub-agent started by
 * `delegate_task` (depth 1, 2…). A tool call carries only its task id, so `delegate_task` looks
 * up here what its parent may use: the allowed tools, the model, the nesting depth. Entries are
 * added when a task starts and removed when it ends; nothing outlives its task.
 */
export interface AgentTask {
  readonly taskId: string;
  readonly sessionKey: string;
  readonly depth: number;
  readonly model: string;
  /** The tools this task may run; a sub-agent gets a subset. */
  readonly allowedTools: ReadonlySet<string>;
}

export interface AgentTaskTable {
  get(taskId: string): AgentTask | undefined;
  /** Registers a running task; the returned function removes it. */
  enter(task: AgentTask): () => void;
  readonly size: number;
}

export function createAgentTaskTable(): AgentTaskTable {
  const tasks = new Map<string, AgentTask>();
  return {
    get: (taskId) => tasks.get(taskId),
    enter(task) {
      tasks.set(task.taskId, task);
      return () => {
        if (tasks.get(task.taskId) === task) tasks.delete(task.taskId);
      };
    },
    get size() {
      return tasks.size;
    },
  };
}
