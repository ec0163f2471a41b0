// Starting, stopping and restarting the language server (`<python> -m whylens serve` over stdio).
// Restarts are serialized (never two at once) and happen only when the interpreter changes.
import * as fs from 'fs';
import * as os from 'os';
import * as vscode from 'vscode';
import { Executable, LanguageClient, LanguageClientOptions, State, Trace } from 'vscode-languageclient/node';
import { ClientCommands, IndexStatusParams, Notifications, ServerCommands } from './protocol';
import { Candidate, ProbeResult, interpreterCandidates, serverCommand } from './pure/interpreter';
import { rewriteLensCommand } from './pure/rationaleText';
import { effectiveTrace, initializationOptions, readClientSettings, sameCommand } from './pure/settings';
import { CoalescingQueue } from './pure/timing';
import { probeInterpreter, pythonExtensionInterpreter } from './python';
import { existingPrivatePython, installServer } from './setup';
import { StatusItem } from './status';

const INSTALL = 'Install in a Private Environment';
const SET_INTERPRETER = 'Set Interpreter';
const SHOW_LOGS = 'Show Logs';

function firstFolder(): vscode.WorkspaceFolder | undefined {
  return vscode.workspace.workspaceFolders?.[0];
}

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('whylens', firstFolder()?.uri);
}

function pathContext() {
  return { workspaceFolder: firstFolder()?.uri.fsPath, userHome: os.homedir() };
}

/** An untrusted (Restricted Mode) workspace: its folders, where no interpreter is taken from. */
function restrictedRoots(): string[] | undefined {
  if (vscode.workspace.isTrusted) return undefined;
  return (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
}

interface Resolved {
  interpreter?: string[];
  probes: { candidate: Candidate; probe: ProbeResult }[];
}

export class ServerManager implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private interpreter: string[] | undefined;
  private readonly queue = new CoalescingQueue(() => this.restartNow());
  private readonly started = new vscode.EventEmitter<LanguageClient>();
  /** Fires after each successful start (the new server knows nothing the old one was told). */
  readonly onDidStart = this.started.event;
  private readonly indexStates = new Map<string, string>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly status: StatusItem,
  ) {
    // "Set Log Level…" on the WhyLens channel raises the LSP trace (Trace → verbose, Debug → messages)
    this.subscriptions.push(log.onDidChangeLogLevel(() => void this.applyTrace()));
  }

  /** The client when the server is running, else undefined. */
  get running(): LanguageClient | undefined {
    return this.client && this.client.state === State.Running ? this.client : undefined;
  }

  /** Start, or restart; concurrent calls share one queued restart. */
  restart(): Promise<void> {
    return this.queue.request();
  }

  /** Restart only when the interpreter that would be used now differs from the running one. */
  async interpreterMaybeChanged(): Promise<void> {
    const { interpreter } = await this.resolveInterpreter();
    if (!sameCommand(interpreter, this.interpreter) || !this.client) {
      this.log.info(`interpreter changed to ${interpreter?.join(' ') ?? '(none usable)'}: restarting`);
      await this.restart();
    }
  }

  /** Create the private environment with a usable base Python and switch to it. */
  async install(): Promise<void> {
    const { probes } = await this.resolveInterpreter();
    const base = probes.find((p) => p.probe.python && !p.probe.pythonTooOld && p.candidate.source !== 'private-venv');
    if (!base) {
      void vscode.window.showErrorMessage(
        'WhyLens: no Python 3.11 or newer was found to create the environment with. Install Python 3.11+ ' +
          'and set "whylens.server.interpreter" to it.',
      );
      return;
    }
    const installed = await installServer(this.context, base.candidate.command, this.log);
    if (installed) await this.restart();
  }

  private async resolveInterpreter(): Promise<Resolved> {
    const folder = firstFolder();
    const trusted = vscode.workspace.isTrusted;
    const settings = readClientSettings(config(), pathContext(), trusted);
    const candidates = interpreterCandidates(
      settings.interpreter,
      settings.interpreter.length || !trusted ? undefined : await pythonExtensionInterpreter(folder?.uri),
      existingPrivatePython(this.context),
      restrictedRoots(),
    );
    if (!trusted) this.log.info('Restricted Mode: no interpreter from the workspace is used');
    const probes: Resolved['probes'] = [];
    for (const candidate of candidates) {
      const probe = await probeInterpreter(candidate.command, this.neutralFolder());
      probes.push({ candidate, probe });
      this.log.info(`interpreter ${candidate.command.join(' ')} (${candidate.source}): ` +
        (probe.ok ? `Python ${probe.python}, whylens ${probe.whylens}` : probe.problem));
      if (probe.ok) return { interpreter: candidate.command, probes };
    }
    return { probes };
  }

  private async restartNow(): Promise<void> {
    await this.stopClient();
    this.status.clientState('starting');
    const { interpreter, probes } = await this.resolveInterpreter();
    this.interpreter = interpreter;
    if (!interpreter) {
      const problem = probes[0]?.probe.problem ?? 'no Python found';
      this.status.clientState('notInstalled', problem);
      void this.offerInstall(problem, probes.some((p) => p.probe.python && !p.probe.pythonTooOld));
      return;
    }
    const client = this.createClient(interpreter);
    this.client = client;
    try {
      await client.start();
      this.log.info(`server started: ${interpreter.join(' ')} -m whylens serve`);
      if (!vscode.workspace.workspaceFolders?.length) this.status.clientState('noRepository');
      else if (this.indexStates.size === 0) this.status.clientState('running'); // (no status yet)
      await this.applyTrace();
      this.started.fire(client);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.log.error(`the server did not start: ${message}`);
      this.status.clientState('stopped', message);
      const choice = await vscode.window.showErrorMessage(`WhyLens: the server did not start: ${message}`, SHOW_LOGS);
      if (choice) this.log.show(true);
    }
  }

  private async offerInstall(problem: string, canInstall: boolean): Promise<void> {
    const buttons = canInstall ? [INSTALL, SET_INTERPRETER, SHOW_LOGS] : [SET_INTERPRETER, SHOW_LOGS];
    const choice = await vscode.window.showErrorMessage(
      `WhyLens: ${problem}. Install it there ("pip install whylens"), choose another interpreter, ` +
        'or let WhyLens create a private environment for it.',
      ...buttons,
    );
    if (choice === INSTALL) await vscode.commands.executeCommand(ClientCommands.installServer);
    else if (choice === SET_INTERPRETER) {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'whylens.server.interpreter');
    } else if (choice === SHOW_LOGS) this.log.show(true);
  }

  /**
   * The working folder of every Python process WhyLens starts: the extension's own storage, never
   * a workspace folder (`python -c` imports from its working folder: a repository's `json.py`
   * would run).
   */
  private neutralFolder(): string {
    const folder = this.context.globalStorageUri.fsPath;
    try {
      fs.mkdirSync(folder, { recursive: true });
      return folder;
    } catch {
      return os.homedir();
    }
  }

  private createClient(interpreter: string[]): LanguageClient {
    const { command, args } = serverCommand(interpreter);
    const serverOptions: Executable = {
      command,
      args,
      options: { cwd: this.neutralFolder(), env: { ...process.env, PYTHONUNBUFFERED: '1' } },
    };
    const lensCommand = <C extends vscode.Command>(c: C | undefined) =>
      rewriteLensCommand(c, ServerCommands.explainSymbol, ClientCommands.showRationale);
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      outputChannel: this.log,
      traceOutputChannel: this.log,
      initializationOptions: initializationOptions(config(), this.context.storageUri?.fsPath, pathContext(),
        vscode.workspace.isTrusted),
      synchronize: { configurationSection: 'whylens' },
      // Hovers quote the repository's history: never trusted (no command: links), no raw HTML.
      // The server escapes history text as well (server/whylens/markup.py); this is the second lock.
      markdown: { isTrusted: false, supportHtml: false },
      connectionOptions: { maxRestartCount: 3 },
      middleware: {
        provideCodeLenses: async (document, token, next) => {
          const lenses = await next(document, token);
          for (const lens of lenses ?? []) lens.command = lensCommand(lens.command);
          return lenses;
        },
        resolveCodeLens: async (codeLens, token, next) => {
          const lens = await next(codeLens, token);
          if (lens) lens.command = lensCommand(lens.command);
          return lens;
        },
      },
    };
    const client = new LanguageClient('whylens', 'WhyLens', serverOptions, clientOptions);
    client.onNotification(Notifications.indexStatus, (params: IndexStatusParams) => this.onIndexStatus(params));
    client.onDidChangeState((e) => {
      if (e.newState === State.Stopped && this.client === client) this.status.clientState('stopped');
    });
    return client;
  }

  private async applyTrace(): Promise<void> {
    const client = this.running;
    if (!client) return;
    const level = effectiveTrace(config().get('trace.server'), this.log.logLevel);
    const trace = level === 'verbose' ? Trace.Verbose : level === 'messages' ? Trace.Messages : Trace.Off;
    await client.setTrace(trace).catch(() => undefined);
  }

  /**
   * Show the index state. After an index run the server itself refreshes the code lenses
   * (`workspace/codeLens/refresh`) and re-matches the errors it was sent; nothing to do here.
   */
  private onIndexStatus(params: IndexStatusParams): void {
    this.status.indexStatus(params);
    this.indexStates.set(params.folder ?? '', params.state);
  }

  private async stopClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.indexStates.clear();
    if (!client) return;
    try {
      if (client.state !== State.Stopped) await client.stop(5000);
    } catch (err) {
      this.log.warn(`stopping the server: ${err instanceof Error ? err.message : String(err)}`);
    }
    await client.dispose().catch(() => undefined);
  }

  async dispose(): Promise<void> {
    this.started.dispose();
    for (const s of this.subscriptions) s.dispose();
    await this.stopClient();
  }
}
