// SPDX-License-Identifier: Apache-2.0

import static java.lang.classfile.ClassFile.ACC_ABSTRACT;
import static java.lang.classfile.ClassFile.ACC_ANNOTATION;
import static java.lang.classfile.ClassFile.ACC_BRIDGE;
import static java.lang.classfile.ClassFile.ACC_ENUM;
import static java.lang.classfile.ClassFile.ACC_FINAL;
import static java.lang.classfile.ClassFile.ACC_INTERFACE;
import static java.lang.classfile.ClassFile.ACC_PROTECTED;
import static java.lang.classfile.ClassFile.ACC_PUBLIC;
import static java.lang.classfile.ClassFile.ACC_STATIC;
import static java.lang.classfile.ClassFile.ACC_SYNTHETIC;
import static java.lang.classfile.ClassFile.ACC_VARARGS;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.classfile.AnnotationValue;
import java.lang.classfile.Attributes;
import java.lang.classfile.AttributedElement;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassSignature;
import java.lang.classfile.FieldModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.MethodSignature;
import java.lang.classfile.Signature;
import java.lang.classfile.attribute.InnerClassInfo;
import java.lang.classfile.attribute.ModuleAttribute;
import java.lang.classfile.attribute.ModuleExportInfo;
import java.lang.classfile.attribute.RecordComponentInfo;
import java.lang.classfile.constantpool.ClassEntry;
import java.lang.constant.ClassDesc;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Writes or checks a reviewable listing of a module's public API, read from its class files: the
 * public and protected types and members of the packages its module-info exports to everyone.
 */
public final class ApiListing {

    private static final String USAGE = "usage: java tools/api-listing/ApiListing.java update|check <classesDir> <listingFile>";
    private static final String DEPRECATED = "Ljava/lang/Deprecated;";
    private static final int CONTEXT = 2;

    /** A problem with the input that the user has to fix; reported without a stack trace. */
    private static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Failure(String message) {
            super(message);
        }
    }

    private record Listing(String module, String text, int types, int members) {}

    /** Members sort by kind, then position (enum constants keep their ordinal), name, descriptor. */
    private record Member(int kind, int position, String name, String descriptor, String line) {}

    private static final int ENUM_CONSTANT = 0;
    private static final int FIELD = 1;
    private static final int CONSTRUCTOR = 2;
    private static final int METHOD = 3;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    private static int run(String[] args) {
        if (args.length != 3 || !(args[0].equals("update") || args[0].equals("check"))) {
            System.err.println(USAGE);
            return 2;
        }
        Path classes = Path.of(args[1]);
        Path file = Path.of(args[2]);
        try {
            Listing listing = new ApiListing(classes).listing();
            return args[0].equals("update") ? update(listing, file) : check(listing, file);
        } catch (Failure e) {
            System.err.println("error: " + e.getMessage());
            return 2;
        } catch (IOException | UncheckedIOException e) {
            System.err.println("error: " + e);
            return 2;
        }
    }

    private static int update(Listing listing, Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, listing.text(), StandardCharsets.UTF_8);
        System.err.println("wrote " + file + " (" + listing.types() + " types, " + listing.members() + " members)");
        return 0;
    }

    private static int check(Listing listing, Path file) throws IOException {
        String committed;
        try {
            // Tolerate a checkout that converted the listing to CRLF; the content is what matters.
            committed = Files.readString(file, StandardCharsets.UTF_8).replace("\r\n", "\n");
        } catch (NoSuchFileException e) {
            committed = null;
        }
        if (listing.text().equals(committed)) {
            System.err.println("API of " + listing.module() + " matches " + file);
            return 0;
        }
        if (committed == null) {
            System.err.println(file + " does not exist; the whole listing is new:");
        }
        List<String> before = committed == null ? List.of() : lines(committed);
        List<String> after = lines(listing.text());
        if (before.equals(after)) {
            System.err.println("(the lines are equal; " + file + " differs in line endings or its final newline)");
        } else {
            printDiff(before, after);
        }
        System.err.println("the public API of " + listing.module() + " differs from " + file
                + " (committed listing -> code, above). If the change is intended, run scripts/api.sh update,"
                + " review the diff, commit the listing with the change and say in CHANGELOG.md what users will notice.");
        return 1;
    }

    private static List<String> lines(String text) {
        return text.lines().toList();
    }

    private final Path root;
    private final Map<String, ClassModel> classes = new HashMap<>();
    private final Map<String, Boolean> apiCache = new HashMap<>();
    private List<String> exported = List.of();

    private ApiListing(Path root) {
        this.root = root;
    }

    private Listing listing() throws IOException {
        Path moduleInfo = root.resolve("module-info.class");
        if (!Files.isDirectory(root)) {
            throw new Failure(root + " is not a directory of compiled classes");
        }
        if (!Files.isRegularFile(moduleInfo)) {
            throw new Failure("no module-info.class in " + root
                    + "; the API listing needs a named module, because its unqualified exports define the public API");
        }
        ModuleAttribute module = parse(moduleInfo).findAttribute(Attributes.module())
                .orElseThrow(() -> new Failure(moduleInfo + " has no Module attribute"));
        String moduleName = module.moduleName().name().stringValue();
        // A qualified export names its friends; only what everyone may use is public API.
        exported = module.exports().stream()
                .filter(e -> e.exportsTo().isEmpty())
                .map(ModuleExportInfo::exportedPackage)
                .map(p -> p.name().stringValue())
                .sorted()
                .toList();
        loadClasses();

        List<ClassModel> api = classes.values().stream()
                .filter(c -> exported.contains(packageOf(internalName(c))) && isApi(c))
                .sorted(Comparator.comparing(c -> binaryName(internalName(c))))
                .toList();

        StringBuilder out = new StringBuilder();
        out.append("# API of module ").append(moduleName).append(" (exported packages: ")
                .append(exported.isEmpty() ? "none" : exported.stream().map(p -> p.replace('/', '.'))
                        .collect(Collectors.joining(", ")))
                .append("). Regenerate: scripts/api.sh update\n");
        int members = 0;
        for (ClassModel c : api) {
            out.append('\n').append(typeLine(c)).append('\n');
            for (Member m : members(c)) {
                out.append("  ").append(m.line()).append('\n');
                members++;
            }
        }
        return new Listing(moduleName, out.toString(), api.size(), members);
    }

    private void loadClasses() throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            // Sorted so that a class file that fails to parse is reported the same way every time.
            for (Path p : files.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
                String relative = root.relativize(p).toString().replace('\\', '/');
                String fileName = p.getFileName().toString();
                if (relative.startsWith("META-INF/") || fileName.equals("module-info.class")
                        || fileName.equals("package-info.class")) {
                    continue;
                }
                ClassModel c = parse(p);
                classes.put(internalName(c), c);
            }
        }
    }

    private static ClassModel parse(Path classFile) throws IOException {
        try {
            return ClassFile.of().parse(classFile);
        } catch (IllegalArgumentException e) {
            throw new Failure("cannot parse " + classFile + ": " + e.getMessage());
        }
    }

    private static String internalName(ClassModel c) {
        return c.thisClass().asInternalName();
    }

    private static String packageOf(String internalName) {
        int slash = internalName.lastIndexOf('/');
        return slash < 0 ? "" : internalName.substring(0, slash);
    }

    private static String binaryName(String internalName) {
        return internalName.replace('/', '.');
    }

    private static Optional<InnerClassInfo> selfInfo(ClassModel c) {
        String name = internalName(c);
        return c.findAttribute(Attributes.innerClasses()).stream()
                .flatMap(a -> a.classes().stream())
                .filter(i -> i.innerClass().asInternalName().equals(name))
                .findFirst();
    }

    /** The type's source-level flags: a nested type's are only in InnerClasses (e.g. protected, static). */
    private static int typeFlags(ClassModel c) {
        return selfInfo(c).map(InnerClassInfo::flagsMask).orElse(c.flags().flagsMask());
    }

    private static boolean isNested(ClassModel c) {
        return selfInfo(c).flatMap(InnerClassInfo::outerClass).isPresent();
    }

    private boolean isApi(ClassModel c) {
        // Not computeIfAbsent: the computation recurses into the enclosing types.
        Boolean known = apiCache.get(internalName(c));
        if (known == null) {
            known = computeIsApi(c);
            apiCache.put(internalName(c), known);
        }
        return known;
    }

    private boolean computeIsApi(ClassModel c) {
        if ((c.flags().flagsMask() & ACC_SYNTHETIC) != 0) {
            return false;
        }
        Optional<InnerClassInfo> self = selfInfo(c);
        if (self.isEmpty()) {
            return c.findAttribute(Attributes.enclosingMethod()).isEmpty()
                    && (c.flags().flagsMask() & ACC_PUBLIC) != 0;
        }
        InnerClassInfo info = self.get();
        // Local and anonymous classes have no outer class or no name in their InnerClasses entry.
        if (info.outerClass().isEmpty() || info.innerName().isEmpty()
                || c.findAttribute(Attributes.enclosingMethod()).isPresent()
                || (info.flagsMask() & (ACC_PUBLIC | ACC_PROTECTED)) == 0
                || (info.flagsMask() & ACC_SYNTHETIC) != 0) {
            return false;
        }
        ClassModel outer = classes.get(info.outerClass().get().asInternalName());
        return outer != null && isApi(outer);
    }

    private String simpleName(ClassModel c) {
        String name = internalName(c);
        return selfInfo(c).flatMap(InnerClassInfo::innerName).map(n -> n.stringValue())
                .orElse(name.substring(name.lastIndexOf('/') + 1));
    }

    private String typeLine(ClassModel c) {
        int flags = typeFlags(c);
        String superName = c.superclass().map(ClassEntry::asInternalName).orElse("");
        String kind;
        if ((flags & ACC_ANNOTATION) != 0) {
            kind = "@interface";
        } else if ((flags & ACC_INTERFACE) != 0) {
            kind = "interface";
        } else if ((flags & ACC_ENUM) != 0 && superName.equals("java/lang/Enum")) {
            kind = "enum";
        } else if (superName.equals("java/lang/Record") && c.findAttribute(Attributes.record()).isPresent()) {
            kind = "record";
        } else {
            kind = "class";
        }
        boolean plainClass = kind.equals("class");
        // javac seals an enum whose constants have bodies; users can never extend an enum anyway.
        boolean sealed = !kind.equals("enum") && c.findAttribute(Attributes.permittedSubclasses()).isPresent();

        StringBuilder sb = new StringBuilder(deprecation(c));
        sb.append(access(flags));
        // Modifiers that are implied by the kind (static member interfaces, final records) are left out.
        if (plainClass && (flags & ACC_ABSTRACT) != 0) {
            sb.append("abstract ");
        }
        if (plainClass && isNested(c) && (flags & ACC_STATIC) != 0) {
            sb.append("static ");
        }
        if (plainClass && (flags & ACC_FINAL) != 0) {
            sb.append("final ");
        }
        if (sealed) {
            sb.append("sealed ");
        } else if ((flags & ACC_FINAL) == 0 && extendsSealed(c)) {
            sb.append("non-sealed ");
        }
        sb.append(kind).append(' ').append(binaryName(internalName(c)));

        Optional<ClassSignature> signature = c.findAttribute(Attributes.signature())
                .map(s -> ClassSignature.parseFrom(s.signature().stringValue()));
        signature.ifPresent(s -> sb.append(typeParameters(s.typeParameters())));
        if (kind.equals("record")) {
            List<RecordComponentInfo> components = c.findAttribute(Attributes.record()).get().components();
            String canonical = components.stream().map(rc -> rc.descriptor().stringValue())
                    .collect(Collectors.joining("", "(", ")V"));
            boolean varargs = c.methods().stream().anyMatch(m -> m.methodName().equalsString("<init>")
                    && m.methodType().equalsString(canonical) && (m.flags().flagsMask() & ACC_VARARGS) != 0);
            List<String> rendered = new ArrayList<>();
            for (int i = 0; i < components.size(); i++) {
                rendered.add(recordComponent(components.get(i), varargs && i == components.size() - 1));
            }
            sb.append('(').append(String.join(", ", rendered)).append(')');
        }

        List<String> supertypes = new ArrayList<>();
        String superclass = null;
        if (signature.isPresent()) {
            Signature.ClassTypeSig s = signature.get().superclassSignature();
            if (s != null && !impliedSuperclass(s.className())) {
                superclass = type(s);
            }
            for (Signature.ClassTypeSig i : signature.get().superinterfaceSignatures()) {
                if (!impliedInterface(kind, i.className())) {
                    supertypes.add(type(i));
                }
            }
        } else {
            if (!impliedSuperclass(superName)) {
                superclass = binaryName(superName);
            }
            for (ClassEntry i : c.interfaces()) {
                if (!impliedInterface(kind, i.asInternalName())) {
                    supertypes.add(binaryName(i.asInternalName()));
                }
            }
        }
        boolean isInterface = (flags & ACC_INTERFACE) != 0;
        if (superclass != null && !isInterface) {
            sb.append(" extends ").append(superclass);
        }
        if (!supertypes.isEmpty()) {
            sb.append(isInterface ? " extends " : " implements ").append(String.join(", ", supertypes));
        }
        if (sealed) {
            sb.append(permits(c));
        }
        return sb.toString();
    }

    private static boolean impliedSuperclass(String internalName) {
        return internalName.isEmpty() || internalName.equals("java/lang/Object")
                || internalName.equals("java/lang/Enum") || internalName.equals("java/lang/Record");
    }

    private static boolean impliedInterface(String kind, String internalName) {
        return kind.equals("@interface") && internalName.equals("java/lang/annotation/Annotation");
    }

    /** Class files do not mark non-sealed; it is implied by a direct sealed supertype in this module. */
    private boolean extendsSealed(ClassModel c) {
        String name = internalName(c);
        Stream<ClassEntry> supertypes = Stream.concat(c.superclass().stream(), c.interfaces().stream());
        return supertypes.map(e -> classes.get(e.asInternalName()))
                .filter(s -> s != null)
                .flatMap(s -> s.findAttribute(Attributes.permittedSubclasses()).stream())
                .anyMatch(p -> p.permittedSubclasses().stream().anyMatch(e -> e.asInternalName().equals(name)));
    }

    /** Lists the permitted subclasses that are API; the others are counted, as they bear on exhaustiveness. */
    private String permits(ClassModel c) {
        List<String> visible = new ArrayList<>();
        int hidden = 0;
        for (ClassEntry e : c.findAttribute(Attributes.permittedSubclasses()).get().permittedSubclasses()) {
            ClassModel sub = classes.get(e.asInternalName());
            if (sub != null && exported.contains(packageOf(e.asInternalName())) && isApi(sub)) {
                visible.add(binaryName(e.asInternalName()));
            } else {
                hidden++;
            }
        }
        visible.sort(null);
        StringBuilder sb = new StringBuilder();
        if (!visible.isEmpty()) {
            sb.append(" permits ").append(String.join(", ", visible));
        }
        if (hidden > 0) {
            sb.append(visible.isEmpty() ? " permits" : "").append(" /* +").append(hidden).append(" non-API */");
        }
        return sb.toString();
    }

    private static String recordComponent(RecordComponentInfo rc, boolean varargs) {
        Signature type = rc.findAttribute(Attributes.signature())
                .map(s -> Signature.parseFrom(s.signature().stringValue()))
                .orElseGet(() -> Signature.parseFrom(rc.descriptor().stringValue()));
        String rendered = varargs && type instanceof Signature.ArrayTypeSig a
                ? type(a.componentSignature()) + "..." : type(type);
        return rendered + " " + rc.name().stringValue();
    }

    private List<Member> members(ClassModel c) {
        int typeFlags = typeFlags(c);
        boolean isInterface = (typeFlags & ACC_INTERFACE) != 0;
        // A protected member is API only where a user can subclass: not in a final class (records and
        // enums included), nor in one whose constructors are all package-private or private.
        boolean extensible = isInterface || ((typeFlags & ACC_FINAL) == 0 && (typeFlags & ACC_ENUM) == 0
                && c.methods().stream().anyMatch(m -> m.methodName().equalsString("<init>")
                        && (m.flags().flagsMask() & (ACC_PUBLIC | ACC_PROTECTED)) != 0));
        int visible = extensible ? ACC_PUBLIC | ACC_PROTECTED : ACC_PUBLIC;
        List<Member> members = new ArrayList<>();
        int ordinal = 0;
        for (FieldModel f : c.fields()) {
            int flags = f.flags().flagsMask();
            if ((flags & ACC_ENUM) != 0) {
                ordinal++;
            }
            if ((flags & visible) == 0 || (flags & ACC_SYNTHETIC) != 0) {
                continue;
            }
            String name = f.fieldName().stringValue();
            String descriptor = f.fieldType().stringValue();
            if ((flags & ACC_ENUM) != 0) {
                // Declaration order is the ordinal, which callers can observe, so it is kept.
                members.add(new Member(ENUM_CONSTANT, ordinal, name, descriptor,
                        deprecation(f) + "enum constant " + name));
                continue;
            }
            Signature type = f.findAttribute(Attributes.signature())
                    .map(s -> Signature.parseFrom(s.signature().stringValue()))
                    .orElseGet(() -> Signature.parseFrom(descriptor));
            StringBuilder sb = new StringBuilder(deprecation(f)).append(access(flags));
            if ((flags & ACC_STATIC) != 0) {
                sb.append("static ");
            }
            if ((flags & ACC_FINAL) != 0) {
                sb.append("final ");
            }
            sb.append(type(type)).append(' ').append(name);
            members.add(new Member(FIELD, 0, name, descriptor, sb.toString()));
        }
        for (MethodModel m : c.methods()) {
            int flags = m.flags().flagsMask();
            String name = m.methodName().stringValue();
            if ((flags & visible) == 0 || (flags & (ACC_SYNTHETIC | ACC_BRIDGE)) != 0
                    || name.equals("<clinit>")) {
                continue;
            }
            boolean constructor = name.equals("<init>");
            members.add(new Member(constructor ? CONSTRUCTOR : METHOD, 0, name, m.methodType().stringValue(),
                    methodLine(c, m, flags, isInterface, constructor)));
        }
        members.sort(Comparator.comparingInt(Member::kind).thenComparingInt(Member::position)
                .thenComparing(Member::name).thenComparing(Member::descriptor));
        return members;
    }

    private String methodLine(ClassModel c, MethodModel m, int flags, boolean isInterface, boolean constructor) {
        String descriptor = m.methodType().stringValue();
        Optional<MethodSignature> signature = m.findAttribute(Attributes.signature())
                .map(s -> MethodSignature.parseFrom(s.signature().stringValue()));
        MethodSignature erased = MethodSignature.parseFrom(descriptor);
        List<Signature> parameters = new ArrayList<>(signature.orElse(erased).arguments());
        // The descriptor of an inner class's constructor carries the enclosing instance; the source does not.
        if (constructor && signature.isEmpty() && isNested(c) && (typeFlags(c) & ACC_STATIC) == 0
                && !parameters.isEmpty()) {
            parameters.removeFirst();
        }

        StringBuilder sb = new StringBuilder(deprecation(m)).append(access(flags));
        if (isInterface) {
            if ((flags & ACC_STATIC) != 0) {
                sb.append("static ");
            } else if ((flags & ACC_ABSTRACT) != 0) {
                sb.append("abstract ");
            } else {
                sb.append("default ");
            }
        } else {
            if ((flags & ACC_ABSTRACT) != 0) {
                sb.append("abstract ");
            }
            if ((flags & ACC_STATIC) != 0) {
                sb.append("static ");
            }
            if ((flags & ACC_FINAL) != 0) {
                sb.append("final ");
            }
        }
        signature.ifPresent(s -> {
            String params = typeParameters(s.typeParameters());
            if (!params.isEmpty()) {
                sb.append(params).append(' ');
            }
        });
        if (constructor) {
            sb.append(simpleName(c));
        } else {
            sb.append(type(signature.orElse(erased).result())).append(' ').append(m.methodName().stringValue());
        }

        List<String> rendered = new ArrayList<>();
        for (int i = 0; i < parameters.size(); i++) {
            Signature p = parameters.get(i);
            boolean varargs = (flags & ACC_VARARGS) != 0 && i == parameters.size() - 1
                    && p instanceof Signature.ArrayTypeSig;
            rendered.add(varargs ? type(((Signature.ArrayTypeSig) p).componentSignature()) + "..." : type(p));
        }
        sb.append('(').append(String.join(", ", rendered)).append(')');

        List<String> thrown = signature.map(MethodSignature::throwableSignatures).orElse(List.of()).stream()
                .map(ApiListing::type)
                .collect(Collectors.toCollection(ArrayList::new));
        if (thrown.isEmpty()) {
            m.findAttribute(Attributes.exceptions()).ifPresent(e -> e.exceptions()
                    .forEach(x -> thrown.add(binaryName(x.asInternalName()))));
        }
        if (!thrown.isEmpty()) {
            // The order of a throws clause means nothing to callers, so it is sorted to avoid noise.
            thrown.sort(null);
            sb.append(" throws ").append(String.join(", ", thrown));
        }
        m.findAttribute(Attributes.annotationDefault())
                .ifPresent(d -> sb.append(" default ").append(annotationValue(d.defaultValue())));
        return sb.toString();
    }

    private static String access(int flags) {
        if ((flags & ACC_PUBLIC) != 0) {
            return "public ";
        }
        return (flags & ACC_PROTECTED) != 0 ? "protected " : "";
    }

    private static String deprecation(AttributedElement element) {
        return element.findAttribute(Attributes.runtimeVisibleAnnotations()).stream()
                .flatMap(a -> a.annotations().stream())
                .filter(a -> a.className().stringValue().equals(DEPRECATED))
                .findFirst()
                .map(a -> a.elements().stream().anyMatch(e -> e.name().stringValue().equals("forRemoval")
                        && e.value() instanceof AnnotationValue.OfBoolean b && b.booleanValue())
                        ? "@java.lang.Deprecated(forRemoval=true) " : "@java.lang.Deprecated ")
                .orElse("");
    }

    private static String typeParameters(List<Signature.TypeParam> params) {
        if (params.isEmpty()) {
            return "";
        }
        return params.stream().map(p -> {
            List<Signature> bounds = new ArrayList<>();
            p.classBound().ifPresent(bounds::add);
            bounds.addAll(p.interfaceBounds());
            // An unbounded parameter is recorded as bounded by Object; Java source leaves that out.
            if (bounds.size() == 1 && bounds.getFirst() instanceof Signature.ClassTypeSig c
                    && c.className().equals("java/lang/Object") && c.outerType().isEmpty()) {
                bounds.clear();
            }
            return bounds.isEmpty() ? p.identifier()
                    : p.identifier() + " extends " + bounds.stream().map(ApiListing::type)
                            .collect(Collectors.joining(" & "));
        }).collect(Collectors.joining(", ", "<", ">"));
    }

    private static String type(Signature signature) {
        return switch (signature) {
            case Signature.BaseTypeSig b -> ClassDesc.ofDescriptor(String.valueOf(b.baseType())).displayName();
            case Signature.ArrayTypeSig a -> type(a.componentSignature()) + "[]";
            case Signature.TypeVarSig v -> v.identifier();
            case Signature.ClassTypeSig c -> {
                // Nested types print as binary names (Outer$Inner), with the outer type's arguments if any.
                String name = c.outerType().map(o -> type(o) + "$").orElse("") + c.className().replace('/', '.');
                yield c.typeArgs().isEmpty() ? name
                        : name + c.typeArgs().stream().map(ApiListing::typeArgument)
                                .collect(Collectors.joining(", ", "<", ">"));
            }
        };
    }

    private static String typeArgument(Signature.TypeArg arg) {
        return switch (arg) {
            case Signature.TypeArg.Unbounded u -> "?";
            case Signature.TypeArg.Bounded b -> switch (b.wildcardIndicator()) {
                case NONE -> type(b.boundType());
                case EXTENDS -> "? extends " + type(b.boundType());
                case SUPER -> "? super " + type(b.boundType());
            };
        };
    }

    private static String annotationValue(AnnotationValue value) {
        return switch (value) {
            case AnnotationValue.OfString s -> '"' + s.stringValue().replace("\\", "\\\\").replace("\"", "\\\"") + '"';
            case AnnotationValue.OfChar ch -> "'" + ch.charValue() + "'";
            case AnnotationValue.OfLong l -> l.longValue() + "L";
            case AnnotationValue.OfFloat f -> f.floatValue() + "f";
            case AnnotationValue.OfConstant k -> String.valueOf(k.resolvedValue());
            case AnnotationValue.OfEnum e -> type(Signature.of(e.classSymbol())) + "." + e.constantName().stringValue();
            case AnnotationValue.OfClass k -> type(Signature.of(k.classSymbol())) + ".class";
            case AnnotationValue.OfArray a -> a.values().stream().map(ApiListing::annotationValue)
                    .collect(Collectors.joining(", ", "{", "}"));
            case AnnotationValue.OfAnnotation a -> "@" + type(Signature.of(a.annotation().classSymbol())) + "(...)";
        };
    }

    private enum Op { KEEP, REMOVE, ADD }

    private record Edit(Op op, int oldIndex, int newIndex) {}

    /** Prints a line diff with a little context; each hunk names the type its first line belongs to. */
    private static void printDiff(List<String> before, List<String> after) {
        List<Edit> edits = diff(before, after);
        int i = 0;
        while (i < edits.size()) {
            if (edits.get(i).op() == Op.KEEP) {
                i++;
                continue;
            }
            int start = Math.max(0, i - CONTEXT);
            int end = i;
            // Extend the hunk while changes are closer together than twice the context.
            while (end < edits.size()) {
                if (edits.get(end).op() != Op.KEEP) {
                    end++;
                    continue;
                }
                int next = end;
                while (next < edits.size() && edits.get(next).op() == Op.KEEP) {
                    next++;
                }
                if (next < edits.size() && next - end <= 2 * CONTEXT) {
                    end = next;
                } else {
                    end = Math.min(edits.size(), end + CONTEXT);
                    break;
                }
            }
            printHunk(edits.subList(start, end), before, after);
            i = end;
        }
    }

    private static void printHunk(List<Edit> hunk, List<String> before, List<String> after) {
        long oldCount = hunk.stream().filter(e -> e.op() != Op.ADD).count();
        long newCount = hunk.stream().filter(e -> e.op() != Op.REMOVE).count();
        // As in unified diffs, an empty side is numbered by the line before it.
        int oldStart = hunk.getFirst().oldIndex() + (oldCount == 0 ? 0 : 1);
        int newStart = hunk.getFirst().newIndex() + (newCount == 0 ? 0 : 1);
        Edit change = hunk.stream().filter(e -> e.op() != Op.KEEP).findFirst().orElseThrow();
        String owner = change.op() == Op.ADD ? enclosingType(after, change.newIndex())
                : enclosingType(before, change.oldIndex());
        System.err.println("@@ -" + oldStart + "," + oldCount + " +" + newStart + "," + newCount + " @@"
                + (owner.isEmpty() ? "" : " " + owner));
        for (Edit e : hunk) {
            String line = switch (e.op()) {
                case KEEP -> "  " + before.get(e.oldIndex());
                case REMOVE -> "- " + before.get(e.oldIndex());
                case ADD -> "+ " + after.get(e.newIndex());
            };
            System.err.println(line.stripTrailing());
        }
    }

    private static String enclosingType(List<String> lines, int from) {
        for (int i = from; i >= 0; i--) {
            String line = lines.get(i);
            if (!line.isEmpty() && !line.startsWith(" ") && !line.startsWith("#")) {
                return line;
            }
        }
        return "";
    }

    /** A longest-common-subsequence diff, after trimming the common head and tail that most changes leave. */
    private static List<Edit> diff(List<String> a, List<String> b) {
        int head = 0;
        while (head < a.size() && head < b.size() && a.get(head).equals(b.get(head))) {
            head++;
        }
        int tail = 0;
        while (tail < a.size() - head && tail < b.size() - head
                && a.get(a.size() - 1 - tail).equals(b.get(b.size() - 1 - tail))) {
            tail++;
        }
        int n = a.size() - head - tail;
        int m = b.size() - head - tail;
        List<Edit> edits = new ArrayList<>();
        for (int k = 0; k < head; k++) {
            edits.add(new Edit(Op.KEEP, k, k));
        }
        if ((long) (n + 1) * (m + 1) > 50_000_000L) {
            for (int k = 0; k < n; k++) {
                edits.add(new Edit(Op.REMOVE, head + k, head));
            }
            for (int k = 0; k < m; k++) {
                edits.add(new Edit(Op.ADD, head + n, head + k));
            }
        } else {
            int[][] lcs = new int[n + 1][m + 1];
            for (int x = n - 1; x >= 0; x--) {
                for (int y = m - 1; y >= 0; y--) {
                    lcs[x][y] = a.get(head + x).equals(b.get(head + y)) ? lcs[x + 1][y + 1] + 1
                            : Math.max(lcs[x + 1][y], lcs[x][y + 1]);
                }
            }
            int x = 0;
            int y = 0;
            while (x < n || y < m) {
                if (x < n && y < m && a.get(head + x).equals(b.get(head + y))) {
                    edits.add(new Edit(Op.KEEP, head + x++, head + y++));
                } else if (y < m && (x == n || lcs[x][y + 1] > lcs[x + 1][y])) {
                    edits.add(new Edit(Op.ADD, head + x, head + y++));
                } else {
                    edits.add(new Edit(Op.REMOVE, head + x++, head + y));
                }
            }
        }
        for (int k = 0; k < tail; k++) {
            edits.add(new Edit(Op.KEEP, a.size() - tail + k, b.size() - tail + k));
        }
        return edits;
    }
}
