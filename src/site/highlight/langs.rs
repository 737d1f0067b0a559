//! The languages the highlighter knows, each a table: what its comments,
//! strings and words look like. A language missing here is shown plain;
//! adding one is a table, not code.

use super::Colour;

/// How a language's text is read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// Words, strings, comments, numbers (most languages, data formats).
    Code,
    /// Tags, attributes and entities (HTML, XML, Vue).
    Markup,
    /// Headings, quotes, lists, code (Markdown).
    Prose,
    /// Lines added, removed, hunks and headers (a unified diff).
    Patch,
}

/// A string's delimiters.
#[derive(Debug)]
pub struct Quote {
    pub open: &'static str,
    pub close: &'static str,
    /// The byte that escapes the next one (`\`), if any.
    pub escape: Option<u8>,
    /// Whether the string may run past the end of its line; one that may
    /// not ends there, so a stray quote colours one line, not the rest.
    pub multiline: bool,
}

/// A byte that makes the word after it one thing: `$` a variable,
/// `@` a decorator, `#` a directive.
#[derive(Debug)]
pub struct Sigil {
    pub byte: u8,
    pub colour: Colour,
    /// Only after a space or at a line's start (`-` of `ls -la`).
    pub after_space: bool,
}

/// A language, as a table. Lists of words are written as one string,
/// the words parted by spaces.
#[derive(Debug)]
pub struct Spec {
    pub name: &'static str,
    /// Fence names, file extensions and file names (lower case).
    pub names: &'static str,
    pub mode: Mode,
    pub line_comments: &'static [&'static str],
    pub block_comment: Option<(&'static str, &'static str)>,
    /// A line comment only after a space or at a line's start (`#` in a
    /// shell, where `a#b` is a word).
    pub comment_after_space: bool,
    /// Tried in order: a triple quote before a single one.
    pub quotes: &'static [Quote],
    /// `'` opens a character only when it closes a few bytes on (`'a'`,
    /// `'\n'`); otherwise it is a lifetime or a quote mark.
    pub char_quote: bool,
    /// Words that may stand right before a quote and belong to the
    /// string (`r"…"`, `f'…'`).
    pub string_prefixes: &'static str,
    /// Rust's raw strings: `r#"…"#`.
    pub raw_strings: bool,
    pub keywords: &'static str,
    pub storage: &'static str,
    pub constants: &'static str,
    pub support: &'static str,
    /// Words after which the next word is the name being defined.
    pub definers: &'static str,
    pub sigils: &'static [Sigil],
    /// Bytes a word may hold besides letters, digits and `_`.
    pub word_extra: &'static [u8],
    /// A word or string right before this separator is a key, this colour
    /// (`"name":` in JSON, `name:` in YAML); with `true`, only when a space
    /// or the line's end follows the separator (`a: b`, not `http://`).
    pub key: Option<(u8, Colour, bool)>,
    /// `[section]` at a line's start (TOML, INI).
    pub sections: bool,
    /// Keywords in any case (SQL, PowerShell).
    pub ignore_case: bool,
}

const fn quote(open: &'static str, escape: bool, multiline: bool) -> Quote {
    Quote {
        open,
        close: open,
        escape: if escape { Some(b'\\') } else { None },
        multiline,
    }
}

const DQ: Quote = quote("\"", true, false);
const SQ: Quote = quote("'", true, false);
const DQ_ML: Quote = quote("\"", true, true);
const SQ_RAW_ML: Quote = quote("'", false, true);
const BACKTICK_ML: Quote = quote("`", true, true);

const fn sigil(byte: u8, colour: Colour) -> Sigil {
    Sigil {
        byte,
        colour,
        after_space: false,
    }
}
/// A sigil only after a space or at a line's start.
const fn sigil_after_space(byte: u8, colour: Colour) -> Sigil {
    Sigil {
        byte,
        colour,
        after_space: true,
    }
}
/// `-v`, `--force`, `-Path`: a command's option.
const OPTION: Sigil = sigil_after_space(b'-', Colour::Parameter);

const BASE: Spec = Spec {
    name: "",
    names: "",
    mode: Mode::Code,
    line_comments: &[],
    block_comment: None,
    comment_after_space: false,
    quotes: &[DQ, SQ],
    char_quote: false,
    string_prefixes: "",
    raw_strings: false,
    keywords: "",
    storage: "",
    constants: "",
    support: "",
    definers: "",
    sigils: &[],
    word_extra: &[],
    key: None,
    sections: false,
    ignore_case: false,
};

/// The C family's comments.
const C_LINE: &[&str] = &["//"];
const C_BLOCK: Option<(&str, &str)> = Some(("/*", "*/"));
const C_CONTROL: &str = "if else for while do switch case default break continue return goto try \
    catch finally throw new delete sizeof typeof instanceof in of yield await \
    import export from as using namespace package throws operator this super \
    self";
const JS_STORAGE: &str =
    "var let const function class extends static async get set interface type \
    enum implements public private protected readonly declare abstract module \
    keyof infer satisfies string number boolean any unknown never void object \
    symbol bigint";
const JS_CONSTANTS: &str = "true false null undefined NaN Infinity";
const JS_SUPPORT: &str =
    "console document window Math JSON Object Array String Number Promise Map Set \
    Date Error RegExp require module process Symbol Boolean globalThis";
const C_TYPES: &str =
    "int char float double long short unsigned signed void bool struct union enum \
    typedef const static extern volatile register inline auto class public \
    private protected virtual override template typename friend explicit mutable \
    constexpr size_t uint8_t uint16_t uint32_t uint64_t int8_t int16_t int32_t \
    int64_t";
const JAVA_STORAGE: &str =
    "class interface enum record extends implements public private protected \
    static final abstract synchronized volatile transient native void int long \
    short byte char float double boolean var val fun object data sealed open \
    override internal lateinit suspend companion struct let func protocol \
    extension init def trait case string bool decimal readonly virtual async \
    partial const event delegate ref out params";
const C_CONSTANTS: &str = "true false null NULL nullptr nil";
const HASH: &[&str] = &["#"];

const RUST: Spec = Spec {
    name: "Rust",
    names: "rust rs",
    line_comments: C_LINE,
    block_comment: C_BLOCK,
    quotes: &[DQ_ML],
    char_quote: true,
    string_prefixes: "b c",
    raw_strings: true,
    keywords: "as break continue else for if in loop match return while use yield await \
        super self Self crate where",
    storage: "fn struct enum trait type impl let mut pub const static mod extern unsafe \
        async dyn ref move union i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize \
        f32 f64 bool char str",
    constants: "true false",
    support: "Some None Ok Err String Vec Option Result Box Rc Arc println print eprintln \
        format vec panic assert assert_eq write writeln",
    definers: "fn struct enum trait type mod union",
    ..BASE
};

const PYTHON: Spec = Spec {
    name: "Python",
    names: "python py python3 py3 pyi pyw gyp",
    line_comments: HASH,
    quotes: &[
        quote("\"\"\"", true, true),
        quote("'''", true, true),
        DQ,
        SQ,
    ],
    string_prefixes: "r u b f br rb fr rf R U B F Br bR BR Rb rB RB Fr fR FR Rf rF RF",
    keywords: "and as assert async await break continue del elif else except finally for \
        from global if import in is lambda nonlocal not or pass raise return try \
        while with yield match case",
    storage: "def class",
    constants: "True False None self cls",
    support: "print len range open str int float list dict set tuple bool isinstance \
        enumerate zip map filter sorted sum min max any all super type object \
        Exception ValueError KeyError TypeError",
    definers: "def class",
    sigils: &[sigil(b'@', Colour::Entity)],
    ..BASE
};

const JAVASCRIPT: Spec = Spec {
    name: "JavaScript",
    names: "javascript js jsx mjs cjs node",
    line_comments: C_LINE,
    block_comment: C_BLOCK,
    quotes: &[DQ, SQ, BACKTICK_ML],
    keywords: C_CONTROL,
    storage: JS_STORAGE,
    constants: JS_CONSTANTS,
    support: JS_SUPPORT,
    definers: "function class interface type enum",
    sigils: &[sigil(b'@', Colour::Storage)],
    word_extra: b"$",
    ..BASE
};

const TYPESCRIPT: Spec = Spec {
    name: "TypeScript",
    names: "typescript ts tsx mts cts",
    ..JAVASCRIPT
};

const GO: Spec = Spec {
    name: "Go",
    names: "go golang",
    line_comments: C_LINE,
    block_comment: C_BLOCK,
    quotes: &[DQ, quote("`", false, true)],
    char_quote: true,
    keywords: "break case chan continue default defer else fallthrough for go goto if \
        import package range return select switch",
    storage: "func type struct interface map var const string int int8 int16 int32 int64 \
        uint uint8 uint16 uint32 uint64 uintptr float32 float64 bool byte rune error \
        any",
    constants: "true false nil iota",
    support: "append cap close copy delete len make new panic print println recover fmt",
    definers: "func type",
    ..BASE
};

const C: Spec = Spec {
    name: "C",
    names: "c h",
    line_comments: C_LINE,
    block_comment: C_BLOCK,
    char_quote: true,
    quotes: &[DQ],
    keywords: C_CONTROL,
    storage: C_TYPES,
    constants: C_CONSTANTS,
    support: "printf malloc free memcpy strlen std cout endl",
    definers: "struct class enum union namespace",
    sigils: &[sigil(b'#', Colour::Keyword)],
    ..BASE
};

const CPP: Spec = Spec {
    name: "C++",
    names: "cpp c++ cc cxx hpp hh hxx cu",
    string_prefixes: "L u U u8 R",
    ..C
};

const JAVA_LIKE: Spec = Spec {
    name: "Java",
    names: "java",
    line_comments: C_LINE,
    block_comment: C_BLOCK,
    char_quote: true,
    quotes: &[quote("\"\"\"", true, true), DQ],
    keywords: C_CONTROL,
    storage: JAVA_STORAGE,
    constants: C_CONSTANTS,
    support: "String System List Map Integer Object println Console",
    definers: "class interface enum record fun func struct protocol object trait def",
    sigils: &[sigil(b'@', Colour::Storage)],
    ..BASE
};

const CSHARP: Spec = Spec {
    name: "C#",
    names: "csharp cs c#",
    sigils: &[sigil(b'#', Colour::Keyword), sigil(b'@', Colour::Storage)],
    ..JAVA_LIKE
};
const KOTLIN: Spec = Spec {
    name: "Kotlin",
    names: "kotlin kt kts",
    char_quote: true,
    ..JAVA_LIKE
};
const SWIFT: Spec = Spec {
    name: "Swift",
    names: "swift",
    char_quote: false,
    ..JAVA_LIKE
};
const SCALA: Spec = Spec {
    name: "Scala",
    names: "scala sc sbt",
    ..JAVA_LIKE
};
const DART: Spec = Spec {
    name: "Dart",
    names: "dart",
    char_quote: false,
    quotes: &[DQ, SQ],
    ..JAVA_LIKE
};

const RUBY: Spec = Spec {
    name: "Ruby",
    names: "ruby rb rake gemspec rakefile gemfile",
    line_comments: HASH,
    quotes: &[DQ_ML, quote("'", true, true)],
    keywords: "alias and begin break case do else elsif end ensure for if in next not or \
        redo rescue retry return then unless until when while yield require \
        require_relative include extend attr_accessor attr_reader attr_writer \
        private protected public super self",
    storage: "def class module",
    constants: "true false nil",
    support: "puts print p raise lambda proc",
    definers: "def class module",
    sigils: &[
        sigil(b'@', Colour::Parameter),
        sigil(b'$', Colour::Parameter),
    ],
    word_extra: b"?!",
    ..BASE
};

const PHP: Spec = Spec {
    name: "PHP",
    names: "php",
    line_comments: &["//", "#"],
    block_comment: C_BLOCK,
    quotes: &[DQ_ML, quote("'", true, true)],
    keywords: C_CONTROL,
    storage: "function class interface trait enum extends implements public private \
        protected static abstract final const fn var readonly echo use namespace \
        require require_once include include_once",
    constants: "true false null TRUE FALSE NULL",
    definers: "function class interface trait enum",
    sigils: &[sigil(b'$', Colour::Parameter)],
    ..BASE
};

const LUA: Spec = Spec {
    name: "Lua",
    names: "lua",
    line_comments: &["--"],
    block_comment: Some(("--[[", "]]")),
    quotes: &[DQ, SQ, quote("[[", false, true)],
    keywords: "and break do else elseif end for goto if in not or repeat return then until \
        while require",
    storage: "function local",
    constants: "true false nil self",
    support: "print pairs ipairs table string math type tostring",
    definers: "function",
    ..BASE
};

const SQL: Spec = Spec {
    name: "SQL",
    names: "sql psql mysql sqlite plsql pgsql",
    line_comments: &["--"],
    block_comment: C_BLOCK,
    quotes: &[quote("'", false, true), DQ],
    keywords: "select from where and or not insert into values update set delete create \
        table drop alter add index view join left right inner outer full cross on as \
        group by order having limit offset union all distinct case when then else \
        end in is like between exists primary key foreign references default unique \
        check constraint with returning asc desc begin commit rollback transaction \
        if replace trigger function return returns declare grant revoke cascade \
        using",
    storage: "int integer bigint smallint text varchar char boolean bool date timestamp \
        timestamptz numeric decimal real float double serial bigserial uuid json \
        jsonb blob",
    constants: "null true false",
    support: "count sum avg min max coalesce now lower upper length",
    ignore_case: true,
    ..BASE
};

const SHELL: Spec = Spec {
    name: "Shell",
    names: "bash sh shell zsh ksh console shellscript shell-session terminal bashrc \
        zshrc bash_profile profile zshenv zprofile envrc ebuild fish",
    line_comments: HASH,
    comment_after_space: true,
    quotes: &[DQ_ML, SQ_RAW_ML],
    keywords: "if then else elif fi for while until do done case esac in function select \
        return exit break continue time",
    storage: "export local declare readonly typeset alias unset",
    support: "echo cd source printf read set shift test eval exec trap wait pwd type kill \
        sudo",
    definers: "function",
    sigils: &[sigil(b'$', Colour::Parameter), OPTION],
    word_extra: b"-.",
    ..BASE
};

const POWERSHELL: Spec = Spec {
    name: "PowerShell",
    names: "powershell ps1 psm1 psd1 pwsh ps",
    line_comments: HASH,
    block_comment: Some(("<#", "#>")),
    comment_after_space: true,
    quotes: &[
        Quote {
            open: "\"",
            close: "\"",
            escape: Some(b'`'),
            multiline: true,
        },
        SQ_RAW_ML,
    ],
    keywords: "if else elseif switch foreach for while do until break continue return \
        function filter param begin process end try catch finally throw trap in exit",
    definers: "function filter",
    sigils: &[sigil(b'$', Colour::Parameter), OPTION],
    word_extra: b"-",
    ignore_case: true,
    ..BASE
};

const MAKEFILE: Spec = Spec {
    name: "Makefile",
    names: "makefile make mk mak gnumakefile",
    line_comments: HASH,
    keywords: "ifeq ifneq ifdef ifndef else endif include define endef export override",
    sigils: &[sigil(b'$', Colour::Parameter)],
    key: Some((b':', Colour::Entity, false)),
    word_extra: b"-./%",
    ..BASE
};

const DOCKERFILE: Spec = Spec {
    name: "Dockerfile",
    names: "dockerfile containerfile",
    line_comments: HASH,
    comment_after_space: true,
    keywords: "from run cmd label expose env add copy entrypoint volume user workdir arg \
        onbuild stopsignal healthcheck shell as",
    sigils: &[sigil(b'$', Colour::Parameter)],
    ignore_case: true,
    ..BASE
};

const JSON: Spec = Spec {
    name: "JSON",
    names: "json jsonc json5 jsonl ndjson geojson webmanifest babelrc eslintrc \
        prettierrc",
    line_comments: C_LINE,
    block_comment: C_BLOCK,
    quotes: &[DQ],
    constants: "true false null",
    key: Some((b':', Colour::Support, false)),
    ..BASE
};

const YAML: Spec = Spec {
    name: "YAML",
    names: "yaml yml",
    line_comments: HASH,
    comment_after_space: true,
    quotes: &[DQ, quote("'", false, false)],
    constants: "true false null yes no on off True False ~",
    key: Some((b':', Colour::Tag, true)),
    sigils: &[sigil(b'&', Colour::Entity), sigil(b'*', Colour::Entity)],
    word_extra: b"-./",
    ..BASE
};

const TOML: Spec = Spec {
    name: "TOML",
    names: "toml ini cfg conf properties editorconfig gitconfig env",
    line_comments: &["#", ";"],
    comment_after_space: true,
    quotes: &[
        quote("\"\"\"", true, true),
        quote("'''", false, true),
        DQ,
        quote("'", false, false),
    ],
    constants: "true false",
    key: Some((b'=', Colour::Tag, false)),
    sections: true,
    word_extra: b"-.",
    ..BASE
};

const CSS: Spec = Spec {
    name: "CSS",
    names: "css scss less sass pcss postcss",
    line_comments: &[],
    block_comment: C_BLOCK,
    keywords: "important",
    constants: "inherit initial none auto unset",
    key: Some((b':', Colour::Support, true)),
    sigils: &[
        sigil(b'@', Colour::Keyword),
        sigil(b'$', Colour::Parameter),
        sigil(b'.', Colour::Entity),
        sigil(b'#', Colour::Constant),
    ],
    word_extra: b"-",
    ..BASE
};

const HTML: Spec = Spec {
    name: "HTML",
    names: "html htm xhtml xml svg vue vue-html svelte astro plist xsd xsl xslt rss atom \
        csproj jsp erb hbs handlebars",
    mode: Mode::Markup,
    ..BASE
};

const MARKDOWN: Spec = Spec {
    name: "Markdown",
    names: "markdown md mdx mkd mdown",
    mode: Mode::Prose,
    ..BASE
};

const DIFF: Spec = Spec {
    name: "Diff",
    names: "diff patch udiff",
    mode: Mode::Patch,
    ..BASE
};

const GROOVY: Spec = Spec {
    name: "Groovy",
    names: "groovy gradle gvy jenkinsfile",
    quotes: &[
        quote("\"\"\"", true, true),
        quote("'''", true, true),
        DQ,
        SQ,
    ],
    char_quote: false,
    ..JAVA_LIKE
};

const OBJECTIVE_C: Spec = Spec {
    name: "Objective-C",
    names: "objc objective-c objectivec m mm",
    sigils: &[sigil(b'#', Colour::Keyword), sigil(b'@', Colour::Storage)],
    string_prefixes: "",
    ..C
};

const D: Spec = Spec {
    name: "D",
    names: "d dlang",
    string_prefixes: "r q",
    quotes: &[DQ, quote("`", false, true)],
    ..C
};

const HASKELL: Spec = Spec {
    name: "Haskell",
    names: "haskell hs lhs purescript purs elm",
    line_comments: &["--"],
    block_comment: Some(("{-", "-}")),
    quotes: &[DQ],
    char_quote: true,
    keywords: "case class data default deriving do else if import in infix infixl \
        infixr instance let module newtype of then type where qualified as hiding \
        forall mdo family exposing port",
    constants: "True False Nothing Just Left Right otherwise",
    support: "IO Maybe Either String Int Integer Bool Char Double Float map \
        filter foldr foldl putStrLn print show read return pure fmap",
    word_extra: b"'",
    ..BASE
};

const ML: Spec = Spec {
    name: "OCaml",
    names: "ocaml ml mli fsharp f# fs fsx fsi reason re",
    line_comments: &["//"],
    block_comment: Some(("(*", "*)")),
    quotes: &[DQ],
    char_quote: true,
    keywords: "and as assert begin class constraint do done downto else end exception \
        external for fun function functor if in include inherit initializer lazy \
        let match method module mutable new object of open or private rec sig struct \
        then to try type val virtual when while with member namespace use yield",
    constants: "true false None Some Ok Error unit",
    definers: "let type module fun",
    ..BASE
};

const ERLANG: Spec = Spec {
    name: "Erlang",
    names: "erlang erl hrl",
    line_comments: &["%"],
    quotes: &[DQ],
    keywords: "after and andalso band begin bnot bor bsl bsr bxor case catch cond div \
        end fun if let not of or orelse receive rem try when xor",
    constants: "true false undefined ok error",
    // `-module(x).`: an attribute, at a line's start.
    sigils: &[
        sigil_after_space(b'-', Colour::Keyword),
        sigil(b'?', Colour::Constant),
    ],
    ..BASE
};

const ELIXIR: Spec = Spec {
    name: "Elixir",
    names: "elixir ex exs heex",
    line_comments: HASH,
    quotes: &[quote("\"\"\"", true, true), DQ, SQ],
    keywords: "do end fn if else unless case cond with for receive try catch rescue \
        after raise import require alias use quote unquote when and or not in",
    storage: "def defp defmodule defmacro defmacrop defstruct defprotocol defimpl",
    constants: "true false nil",
    definers: "def defp defmodule defmacro defmacrop",
    sigils: &[
        sigil(b'@', Colour::Parameter),
        sigil(b':', Colour::Constant),
    ],
    word_extra: b"?!",
    ..BASE
};

const PERL: Spec = Spec {
    name: "Perl",
    names: "perl pl pm t",
    line_comments: HASH,
    quotes: &[DQ_ML, quote("'", true, true)],
    keywords: "if elsif else unless while until for foreach do last next redo return \
        use no require package and or not eq ne lt gt le ge cmp local our my sub",
    support: "print printf say die warn open close push pop shift unshift split join \
        map grep sort keys values exists delete defined ref bless chomp",
    definers: "sub package",
    sigils: &[
        sigil(b'$', Colour::Parameter),
        sigil(b'@', Colour::Parameter),
        sigil(b'%', Colour::Parameter),
    ],
    ..BASE
};

const R: Spec = Spec {
    name: "R",
    names: "r rscript rmd",
    line_comments: HASH,
    quotes: &[DQ, SQ],
    keywords: "if else repeat while function for in next break return library require",
    constants: "TRUE FALSE NULL NA NaN Inf T F",
    support: "c list data.frame print paste paste0 cat length seq rep vector matrix \
        sum mean apply lapply sapply",
    word_extra: b".",
    definers: "function",
    ..BASE
};

const JULIA: Spec = Spec {
    name: "Julia",
    names: "julia jl",
    line_comments: HASH,
    block_comment: Some(("#=", "=#")),
    quotes: &[quote("\"\"\"", true, true), DQ],
    char_quote: true,
    keywords: "if elseif else end for while do try catch finally return break continue \
        begin let quote using import export module baremodule in where",
    storage: "function macro struct mutable abstract primitive type const global local",
    constants: "true false nothing missing NaN Inf",
    definers: "function macro struct",
    sigils: &[sigil(b'@', Colour::Entity)],
    word_extra: b"!",
    ..BASE
};

const LISP: Spec = Spec {
    name: "Lisp",
    names: "lisp clojure clj cljs cljc edn scheme scm rkt racket el elisp emacs-lisp \
        common-lisp fennel fnl",
    line_comments: &[";"],
    quotes: &[DQ_ML],
    keywords: "def defn defn- defmacro defun defvar defparameter defconst define \
        let let* letfn lambda fn if when unless cond case do progn loop recur and or \
        not ns require import quote setq setf",
    constants: "nil true false t",
    definers: "def defn defn- defmacro defun defvar defparameter define",
    sigils: &[sigil(b':', Colour::Constant)],
    word_extra: b"-!?*<>=/+.",
    ..BASE
};

const ZIG: Spec = Spec {
    name: "Zig",
    names: "zig zon",
    line_comments: C_LINE,
    quotes: &[DQ],
    char_quote: true,
    keywords: "if else while for switch return break continue defer errdefer try \
        catch orelse unreachable comptime inline and or async await suspend resume \
        test usingnamespace",
    storage: "fn const var pub struct enum union error extern export packed opaque \
        threadlocal u8 u16 u32 u64 usize i8 i16 i32 i64 isize f32 f64 bool void \
        anyerror anytype type",
    constants: "true false null undefined",
    definers: "fn",
    sigils: &[sigil(b'@', Colour::Support)],
    ..BASE
};

const NIX: Spec = Spec {
    name: "Nix",
    names: "nix",
    line_comments: HASH,
    block_comment: C_BLOCK,
    quotes: &[DQ_ML, quote("''", false, true)],
    keywords: "let in with rec inherit if then else assert or import",
    constants: "true false null",
    support: "builtins pkgs lib mkDerivation fetchurl stdenv",
    key: Some((b'=', Colour::Tag, false)),
    word_extra: b"-'",
    ..BASE
};

const HCL: Spec = Spec {
    name: "HCL",
    names: "hcl terraform tf tfvars nomad",
    line_comments: &["#", "//"],
    block_comment: C_BLOCK,
    quotes: &[DQ],
    keywords: "resource data variable output module provider locals terraform for in \
        if dynamic content",
    constants: "true false null",
    key: Some((b'=', Colour::Tag, false)),
    word_extra: b"-",
    ..BASE
};

const GRAPHQL: Spec = Spec {
    name: "GraphQL",
    names: "graphql gql",
    line_comments: HASH,
    quotes: &[quote("\"\"\"", true, true), DQ],
    keywords: "query mutation subscription fragment on schema extend implements \
        directive",
    storage: "type interface union enum input scalar",
    constants: "true false null",
    definers: "type interface union enum input scalar fragment query mutation",
    sigils: &[sigil(b'$', Colour::Parameter), sigil(b'@', Colour::Storage)],
    ..BASE
};

const PROTOBUF: Spec = Spec {
    name: "Protocol Buffers",
    names: "protobuf proto proto3",
    line_comments: C_LINE,
    block_comment: C_BLOCK,
    quotes: &[DQ, SQ],
    keywords: "syntax package import option returns stream reserved to max oneof \
        extend public weak",
    storage: "message service rpc enum repeated optional required map double float \
        int32 int64 uint32 uint64 sint32 sint64 fixed32 fixed64 bool string bytes",
    constants: "true false",
    definers: "message service rpc enum",
    ..BASE
};

const DOT: Spec = Spec {
    name: "Graphviz",
    names: "dot gv graphviz",
    line_comments: &["//", "#"],
    block_comment: C_BLOCK,
    quotes: &[DQ],
    keywords: "strict graph digraph subgraph node edge",
    key: Some((b'=', Colour::Entity, false)),
    ignore_case: true,
    ..BASE
};

const LATEX: Spec = Spec {
    name: "LaTeX",
    names: "latex tex sty bib bibtex context",
    line_comments: &["%"],
    quotes: &[],
    sigils: &[sigil(b'\\', Colour::Keyword), sigil(b'$', Colour::String)],
    ..BASE
};

const MATLAB: Spec = Spec {
    name: "MATLAB",
    names: "matlab octave",
    line_comments: &["%"],
    block_comment: Some(("%{", "%}")),
    quotes: &[DQ],
    keywords: "if elseif else end for while switch case otherwise try catch return \
        break continue function global persistent parfor",
    constants: "true false pi inf nan eps",
    definers: "function",
    ..BASE
};

const PASCAL: Spec = Spec {
    name: "Pascal",
    names: "pascal pas dpr delphi",
    line_comments: C_LINE,
    block_comment: Some(("{", "}")),
    quotes: &[quote("'", false, false)],
    keywords: "begin end if then else case of for to downto do while repeat until \
        with program unit uses interface implementation procedure function var \
        const type record array class object and or not div mod nil",
    constants: "true false nil",
    definers: "procedure function program unit",
    ignore_case: true,
    ..BASE
};

const TCL: Spec = Spec {
    name: "Tcl",
    names: "tcl tk",
    line_comments: HASH,
    comment_after_space: true,
    quotes: &[DQ_ML],
    keywords: "if elseif else for foreach while switch proc return break continue \
        set unset global upvar namespace package source expr puts",
    definers: "proc",
    sigils: &[sigil(b'$', Colour::Parameter)],
    ..BASE
};

const APPLESCRIPT: Spec = Spec {
    name: "AppleScript",
    names: "applescript scpt osascript",
    line_comments: &["--", "#"],
    block_comment: Some(("(*", "*)")),
    quotes: &[DQ],
    keywords: "tell to end if then else repeat with in on set get return of the my \
        try error considering ignoring using terms from script property global local",
    constants: "true false missing value",
    definers: "on to",
    ..BASE
};

const BATCH: Spec = Spec {
    name: "Batch",
    names: "bat cmd batch dosbatch",
    line_comments: &["::", "rem ", "REM ", "@rem ", "@REM "],
    quotes: &[quote("\"", false, false)],
    keywords: "if else for in do goto call exit set setlocal endlocal echo not exist \
        defined errorlevel shift pushd popd",
    sigils: &[sigil(b'%', Colour::Parameter), sigil(b':', Colour::Entity)],
    ignore_case: true,
    ..BASE
};

const ACTIONSCRIPT: Spec = Spec {
    name: "ActionScript",
    names: "actionscript as as3",
    ..JAVASCRIPT
};

/// Every language known, in no particular order.
pub const ALL: &[Spec] = &[
    RUST,
    PYTHON,
    JAVASCRIPT,
    TYPESCRIPT,
    GO,
    C,
    CPP,
    JAVA_LIKE,
    CSHARP,
    KOTLIN,
    SWIFT,
    SCALA,
    DART,
    RUBY,
    PHP,
    LUA,
    SQL,
    SHELL,
    POWERSHELL,
    MAKEFILE,
    DOCKERFILE,
    JSON,
    YAML,
    TOML,
    CSS,
    HTML,
    MARKDOWN,
    DIFF,
    GROOVY,
    OBJECTIVE_C,
    D,
    HASKELL,
    ML,
    ERLANG,
    ELIXIR,
    PERL,
    R,
    JULIA,
    LISP,
    ZIG,
    NIX,
    HCL,
    GRAPHQL,
    PROTOBUF,
    DOT,
    LATEX,
    MATLAB,
    PASCAL,
    TCL,
    APPLESCRIPT,
    BATCH,
    ACTIONSCRIPT,
];
