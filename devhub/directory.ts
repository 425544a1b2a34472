/**
 * The deployment's source of truth in miniature: a static authenticator (token → user) and a chat resolver
 * (chat id → type and members). The guide delegates both to pluggable services (§2, §5); here they are tables
 * loaded from the configuration and editable through the admin interface.
 */
import { tokensOf } from './config';
import type { DevHubChatConfig, DevHubUserConfig } from './options';

export interface HubUser {
  id: string;
  nick_name: string;
}

export interface HubChat {
  id: string;
  type: 'direct' | 'group';
  members: ReadonlySet<string>;
}

export class Directory {
  private readonly users = new Map<string, HubUser>();
  private readonly tokens = new Map<string, string>();
  private readonly chats = new Map<string, HubChat>();

  constructor(users: readonly DevHubUserConfig[], chats: readonly DevHubChatConfig[]) {
    for (const user of users) this.addUser(user);
    for (const chat of chats) this.addChat(chat);
  }

  addUser(user: DevHubUserConfig): void {
    this.removeUser(user.id);
    this.users.set(user.id, { id: user.id, nick_name: user.nick_name ?? user.id });
    for (const token of tokensOf(user)) this.tokens.set(token, user.id);
  }

  removeUser(id: string): void {
    this.users.delete(id);
    for (const [token, owner] of this.tokens) if (owner === id) this.tokens.delete(token);
  }

  /** The user a token belongs to, or undefined (the static authenticator's "4xx"). */
  authenticate(token: string): HubUser | undefined {
    const id = this.tokens.get(token);
    return id === undefined ? undefined : this.users.get(id);
  }

  user(id: string): HubUser | undefined {
    return this.users.get(id);
  }

  nickName(id: string): string {
    return this.users.get(id)?.nick_name ?? id;
  }

  addChat(chat: DevHubChatConfig): void {
    const members = new Set(chat.members);
    this.chats.set(chat.id, { id: chat.id, type: chat.type ?? (members.size > 2 ? 'group' : 'direct'), members });
  }

  removeChat(id: string): void {
    this.chats.delete(id);
  }

  setMembers(id: string, members: readonly string[]): boolean {
    const chat = this.chats.get(id);
    if (!chat) return false;
    this.addChat({ id, members: [...members], type: chat.type });
    return true;
  }

  chat(id: string): HubChat | undefined {
    return this.chats.get(id);
  }

  chatsOf(userId: string): HubChat[] {
    return [...this.chats.values()].filter((c) => c.members.has(userId));
  }

  sharesChat(a: string, b: string): boolean {
    for (const chat of this.chats.values()) if (chat.members.has(a) && chat.members.has(b)) return true;
    return false;
  }

  listUsers(): HubUser[] {
    return [...this.users.values()];
  }

  listChats(): Array<{ id: string; type: string; members: string[] }> {
    return [...this.chats.values()].map((c) => ({ id: c.id, type: c.type, members: [...c.members] }));
  }
}
